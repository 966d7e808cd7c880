//! What a model can be asked for beyond text: whether dcl's request to it carries a
//! thinking budget. The catalogue (`get_models`, `initialize.models`) reports this, so it
//! must follow what the clients really send, not what a model could do elsewhere.

use super::providers;

/// Whether a thinking budget set for `model` (effort, `MAX_THINKING_TOKENS`) reaches it.
///
/// Claude models get `thinking: {type: "enabled", budget_tokens}` from the Anthropic
/// client; the Claude 3 and 3.5 families reject it, so they count as without. Models on
/// the Chat Completions format take it where [`super::openai::takes_thinking`] maps it.
pub fn takes_thinking_budget(model: &str) -> bool {
    let m = super::pricing::normalize(model);
    if m.starts_with("claude-") {
        return ![
            "claude-3-opus",
            "claude-3-sonnet",
            "claude-3-haiku",
            "claude-3-5-",
        ]
        .iter()
        .any(|old| m.starts_with(old));
    }
    match providers::provider_for_model(&m) {
        Some(p) if p.id == "anthropic" => true,
        _ => super::openai::takes_thinking(&m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_4_and_3_7_take_a_budget_older_claude_does_not() {
        assert!(takes_thinking_budget("claude-sonnet-4-5"));
        assert!(takes_thinking_budget("claude-opus-4-8[1m]"));
        assert!(takes_thinking_budget("claude-3-7-sonnet-20250219"));
        assert!(!takes_thinking_budget("claude-3-5-sonnet-20241022"));
        assert!(!takes_thinking_budget("claude-3-haiku-20240307"));
    }

    #[test]
    fn chat_completions_models_follow_the_request_mapping() {
        assert!(takes_thinking_budget("o3"));
        assert!(takes_thinking_budget("qwen-plus"));
        assert!(!takes_thinking_budget("gpt-4o"));
        assert!(!takes_thinking_budget("deepseek-chat"));
        assert!(!takes_thinking_budget("llama3"));
    }
}
