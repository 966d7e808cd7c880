//! The prompt suggestion (`promptSuggestions`): after a turn, the model is asked without
//! tools for the user's likely next message, sent as a `prompt_suggestion` line.

use dcl_protocol::ContentBlock;

use super::{TurnContext, sampling};
use crate::session::conversation::Conversation;

/// Asks the model, without tools, for the user's likely next message.
pub(super) async fn suggest_next_prompt(
    ctx: &TurnContext,
    conv: &Conversation,
    model: &str,
) -> Option<String> {
    let history = conv.api_messages();
    let recent: Vec<String> = history
        .iter()
        .rev()
        .take(4)
        .rev()
        .map(|m| {
            let text: Vec<&str> = m.content.iter().filter_map(ContentBlock::as_text).collect();
            format!("{:?}: {}", m.role, text.join(" "))
        })
        .collect();
    let text = sampling::complete_text(
        ctx,
        model,
        "You predict what the user will type next to a coding agent. Reply with that one short message only.",
        format!(
            "Conversation so far:\n{}\n\nWhat is the user's most likely next message?",
            recent.join("\n")
        ),
        64,
    )
    .await?;
    let text = text.trim().to_string();
    (!text.is_empty()).then_some(text)
}
