//! Model names: aliases, the mock, context windows and prices. The tables live in
//! [`dcl_model::pricing`] (prices, limits of known models) and
//! [`dcl_model::providers`] (defaults per provider); this is the engine's view of them,
//! and the catalogue the host reads (`initialize.models`, Qoder `get_models`), and the
//! Qoder model policy (`get_model_policy`) asked before each model call.

use std::collections::BTreeMap;

use dcl_protocol::{
    EffortLevel, ModelContextWindow, ModelEffort, ModelInfo, ModelPolicyResponse,
    ModelThinkingConfig, ModelThinkingDisabled, ModelThinkingEnabled,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::client::Clients;
use super::emit::Dialect;
use super::services::SessionCore;
use super::state::TurnKind;
use dcl_events::hook_input::ModelSwitch;
use dcl_model::capabilities;

pub use super::model_names::{
    DEFAULT_ANTHROPIC_MODEL, MOCK_MODEL, context_window, is_mock, max_output_tokens, price,
    price_per_mtok, resolve_alias,
};

/// The Claude aliases the catalogue lists, with the ids [`resolve_alias`] gives them.
const CLAUDE_ALIASES: [(&str, &str); 3] =
    [("sonnet", "Sonnet"), ("opus", "Opus"), ("haiku", "Haiku")];

/// Effort levels dcl maps to a thinking budget (`xhigh` is read as `max`).
const EFFORTS: [EffortLevel; 4] = [
    EffortLevel::Low,
    EffortLevel::Medium,
    EffortLevel::High,
    EffortLevel::Max,
];

/// What the catalogue needs from the session.
pub(crate) struct CatalogueView<'a> {
    pub clients: &'a Clients,
    /// The session's current model id.
    pub current: &'a str,
    /// The session's thinking level (`low`…`max`; `off` or `None` when thinking is off).
    pub thinking: Option<&'a str>,
    /// The default's entry, and whether each model's limits are described.
    pub dialect: Dialect,
}

/// The models the host may pick from: the default spelling (`default`, Qoder `auto`),
/// the mock, the Claude aliases and the current model when it is none of these, each with
/// the id it resolves to, its context window and how thinking is set for it.
pub(crate) fn catalogue(view: &CatalogueView<'_>) -> Vec<ModelInfo> {
    let default = view.clients.default_model();
    let (default_value, default_name) = view.dialect.default_model_entry();
    let mut list = vec![describe(
        view,
        ModelInfo::resolved(
            default_value,
            default,
            default_name,
            format!("the configured default model ({default})"),
        ),
    )];
    list.push(describe(
        view,
        ModelInfo::resolved(
            MOCK_MODEL,
            MOCK_MODEL,
            "Mock model",
            "dcl's built-in deterministic offline model",
        ),
    ));
    for (alias, name) in CLAUDE_ALIASES {
        let id = resolve_alias(Some(alias), default);
        let description = match price(&id) {
            Some(p) => format!("Claude {name} ({id}) · ${}/${} per Mtok", p.input, p.output),
            None => format!("Claude {name} ({id})"),
        };
        list.push(describe(
            view,
            ModelInfo::resolved(alias, id, name, description),
        ));
    }
    let listed = |id: &str| {
        list.iter()
            .any(|m| m.value == id || m.resolved_model.as_deref() == Some(id))
    };
    if !listed(view.current) {
        let current = ModelInfo::resolved(
            view.current,
            view.current,
            view.current,
            "the session's model",
        );
        list.push(describe(view, current));
    }
    list
}

/// Fills in what dcl knows of `info`'s model.
fn describe(view: &CatalogueView<'_>, mut info: ModelInfo) -> ModelInfo {
    let id = info
        .resolved_model
        .clone()
        .unwrap_or_else(|| info.value.clone());
    let thinks = !is_mock(&id) && capabilities::takes_thinking_budget(&id);
    info.supports_effort = Some(thinks);
    if thinks {
        info.supported_effort_levels = Some(EFFORTS.iter().map(|e| e.as_str().into()).collect());
    }
    // dcl only ever sends a fixed budget, never adaptive thinking or fast mode.
    info.supports_adaptive_thinking = Some(false);
    info.supports_fast_mode = Some(false);
    if view.dialect.describes_model_limits() {
        info.is_enabled = Some(usable(view.clients, &id));
        let window = context_window(&id);
        info.context_config = Some(BTreeMap::from([(
            window_label(window),
            ModelContextWindow {
                token_count: window,
                is_default: Some(true),
                extra: Default::default(),
            },
        )]));
        info.thinking_config = Some(thinking_config(&id, thinks, view.thinking));
    }
    info
}

/// Whether a call to `id` could be made now: the mock always; otherwise its endpoint
/// needs no key or has one.
fn usable(clients: &Clients, id: &str) -> bool {
    match clients.endpoint_for(id) {
        Ok(None) => true,
        Ok(Some(ep)) => !ep.requires_key() || ep.has_credentials(),
        Err(_) => false,
    }
}

/// `200K`, `128K` (131072 too), `1M`: how catalogues label a context window.
fn window_label(tokens: u64) -> String {
    if tokens >= 1_000_000 {
        format!("{}M", (tokens as f64 / 1_000_000.0).round() as u64)
    } else if !tokens.is_multiple_of(1000) && tokens.is_multiple_of(1024) {
        format!("{}K", tokens / 1024)
    } else {
        format!("{}K", (tokens as f64 / 1000.0).round() as u64)
    }
}

fn thinking_config(id: &str, thinks: bool, current: Option<&str>) -> ModelThinkingConfig {
    let on = current.filter(|l| *l != "off");
    let disabled = Some(ModelThinkingDisabled {
        description: Some("No extended thinking".into()),
        extra: Default::default(),
    });
    if !thinks {
        return ModelThinkingConfig {
            disabled,
            enabled: None,
            extra: Default::default(),
        };
    }
    // The same cap the request applies (see `turn::sampling::build_request`).
    let max_tokens = max_output_tokens(id).min(32_000) as u32;
    let efforts = EFFORTS
        .iter()
        .filter_map(|level| {
            let budget = super::effort::thinking_budget(level.as_str(), max_tokens)?;
            Some((
                level.as_str().to_string(),
                ModelEffort {
                    description: Some(format!("thinking budget of {budget} tokens")),
                    is_default: Some(on == Some(level.as_str())),
                    extra: Default::default(),
                },
            ))
        })
        .collect();
    ModelThinkingConfig {
        disabled,
        enabled: Some(ModelThinkingEnabled {
            description: Some("Extended thinking with a token budget".into()),
            efforts: Some(efforts),
            is_default: Some(on.is_some()),
            extra: Default::default(),
        }),
        extra: Default::default(),
    }
}

/// What the host's model policy chose for one call.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct PolicyChoice {
    /// The model for this call (resolved); `None` keeps dcl's.
    pub model: Option<String>,
    /// `parameters.reasoningEffort`: the effort level for this call.
    pub effort: Option<String>,
}

/// Why a `get_model_policy` answer fails the model call it was asked for.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// The host refused, timed out or the session closed.
    #[error("get_model_policy: {0}")]
    Host(super::host::HostError),
    #[error("get_model_policy: the host's answer is malformed: {0}")]
    Malformed(serde_json::Error),
    #[error(
        "get_model_policy: custom_model (a host-supplied provider and key) is not supported by dcl; answer with a model name instead"
    )]
    CustomModel,
    #[error("get_model_policy: parameters.reasoningEffort: {0}")]
    Effort(super::effort::UnknownEffort),
}

/// Asks the host which model the next call uses (Qoder `get_model_policy`, sent only when
/// `initialize.modelPolicyProvider` was true). A refusal or a timeout fails the call: the
/// Qoder SDK raises its callback's errors rather than fall back silently, and so does dcl.
pub(crate) async fn ask_policy(
    core: &SessionCore,
    kind: &TurnKind,
    resolved: &str,
    cancel: &CancellationToken,
) -> Result<PolicyChoice, PolicyError> {
    let (turn_index, thinking) = core.state.with(|s| {
        (
            s.stats.prompts.saturating_sub(1),
            super::effort::current_level(&s.live),
        )
    });
    let services = &core.services;
    let models = catalogue(&CatalogueView {
        clients: &services.clients,
        current: resolved,
        thinking: thinking.as_deref(),
        // A Qoder request: its models are described as Qoder's catalogue describes them.
        dialect: Dialect::qoder_sdk(),
    });
    let mut request = json!({
        "subtype": "get_model_policy",
        "purpose": "main",
        "sessionId": services.emitter.session_id(),
        "turnIndex": turn_index,
        "resolvedModel": resolved,
        "models": models,
    });
    if let TurnKind::Subagent {
        agent_id,
        agent_type,
    } = kind
    {
        request["purpose"] = json!("subagent");
        request["agentId"] = json!(agent_id);
        request["agentType"] = json!(agent_type);
    }
    let answer = services
        .host
        .request(&services.emitter, request, cancel)
        .await
        .map_err(PolicyError::Host)?;
    let answer: ModelPolicyResponse =
        serde_json::from_value(answer).map_err(PolicyError::Malformed)?;
    policy_choice(answer, services.clients.default_model())
}

/// Reads the host's answer. What dcl cannot act on fails the call when ignoring it would
/// send the request somewhere else than the host asked (`custom_model`), and is reported
/// as a warning when the call is still what the host wanted.
fn policy_choice(answer: ModelPolicyResponse, default: &str) -> Result<PolicyChoice, PolicyError> {
    if answer.custom_model.is_some() {
        return Err(PolicyError::CustomModel);
    }
    let mut choice = PolicyChoice {
        model: answer
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(|m| resolve_alias(Some(m), default)),
        effort: None,
    };
    if let Some(params) = answer.parameters.as_ref().and_then(Value::as_object) {
        for (key, value) in params {
            match (key.as_str(), value) {
                ("reasoningEffort", Value::String(level)) => {
                    choice.effort = Some(super::effort::parse(level).map_err(PolicyError::Effort)?);
                }
                ("reasoningEffort", Value::Null) => {}
                (other, _) => tracing::warn!(
                    "get_model_policy: parameters.{other} is not supported by dcl; ignored"
                ),
            }
        }
    }
    for (field, present) in [
        ("task_id", answer.task_id.is_some()),
        ("sub_task", answer.sub_task.is_some()),
    ] {
        if present {
            tracing::warn!("get_model_policy: {field} is not supported by dcl; ignored");
        }
    }
    Ok(choice)
}

/// PreModelSwitch/PostModelSwitch input. dcl keeps no record of the prompt cache, so
/// `prompt_cache_warm` is false and `estimated_cache_write_usd` prices the whole context
/// as a cache write at the new model's rate (`pricing`: `catalog` when dcl's price table
/// lists it, else `default`, counted as free).
pub(crate) fn model_switch_input(
    core: &SessionCore,
    from: &str,
    to: &str,
    requested: Option<&str>,
    source: &str,
) -> ModelSwitch {
    // The mock counts a quarter of the characters; the request size is in bytes.
    let context_tokens = core
        .conversation_size
        .load(std::sync::atomic::Ordering::Relaxed) as u64
        / 4;
    let price = price_per_mtok(to);
    let write_usd = price.map_or(0.0, |(_, _, _, write)| {
        context_tokens as f64 * write / 1_000_000.0
    });
    ModelSwitch {
        from_model: from.into(),
        to_model: to.into(),
        requested_model: requested.map(str::to_string),
        source: source.into(),
        context_tokens,
        prompt_cache_warm: false,
        cache_ttl: "5m".into(),
        estimated_cache_write_usd: write_usd,
        pricing: if price.is_some() {
            "catalog"
        } else {
            "default"
        }
        .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engine_view() {
        assert_eq!(price_per_mtok("mock-model"), Some((0.0, 0.0, 0.0, 0.0)));
        assert_eq!(
            price_per_mtok("claude-sonnet-4-5"),
            Some((3.0, 15.0, 0.3, 3.75))
        );
        assert_eq!(price_per_mtok("llama3"), None);
        assert_eq!(context_window("mock-model"), 200_000);
        assert_eq!(context_window("claude-opus-4-8[1m]"), 1_000_000);
        assert_eq!(context_window("claude-unknown-9"), 200_000);
        assert_eq!(context_window("qwen-plus"), 131_072);
        assert_eq!(context_window("llama3"), 128_000);
        assert_eq!(max_output_tokens("mock-model"), 8_192);
        assert_eq!(max_output_tokens("claude-opus-4-1"), 32_000);
        assert_eq!(max_output_tokens("claude-sonnet-4-5"), 64_000);
        assert_eq!(max_output_tokens("deepseek-flash"), 8_192);
        assert_eq!(max_output_tokens("gpt-4o"), 16_384);
        assert_eq!(max_output_tokens("llama3"), 8_192);
        assert_eq!(resolve_alias(Some("opus"), "x"), "claude-opus-4-1");
        assert_eq!(resolve_alias(Some("default"), "x"), "x");
        assert_eq!(resolve_alias(Some(" auto "), "x"), "x");
    }

    #[test]
    fn window_labels_read_as_catalogues_write_them() {
        assert_eq!(window_label(200_000), "200K");
        assert_eq!(window_label(131_072), "128K");
        assert_eq!(window_label(128_000), "128K");
        assert_eq!(window_label(1_000_000), "1M");
        assert_eq!(window_label(1_047_576), "1M");
    }

    #[test]
    fn thinking_config_lists_the_budgets_the_request_would_send() {
        let cfg = thinking_config("claude-sonnet-4-5", true, Some("high"));
        let on = cfg.enabled.unwrap();
        assert_eq!(on.is_default, Some(true));
        let efforts = on.efforts.unwrap();
        assert_eq!(
            efforts.keys().map(String::as_str).collect::<Vec<_>>(),
            ["high", "low", "max", "medium"]
        );
        assert_eq!(
            efforts["max"].description.as_deref(),
            Some("thinking budget of 31999 tokens")
        );
        assert_eq!(efforts["high"].is_default, Some(true));
        assert_eq!(efforts["low"].is_default, Some(false));
        let off = thinking_config("deepseek-chat", false, None);
        assert!(off.enabled.is_none() && off.disabled.is_some());
    }

    fn policy(v: serde_json::Value) -> Result<PolicyChoice, String> {
        policy_choice(serde_json::from_value(v).unwrap(), "claude-sonnet-4-5")
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_policy_answer_picks_the_model_and_effort_of_one_call() {
        assert_eq!(
            policy(json!({"type": "get_model_policy"})).unwrap(),
            PolicyChoice::default()
        );
        assert_eq!(
            policy(json!({"model": "haiku", "parameters": {"reasoningEffort": "xhigh"}})).unwrap(),
            PolicyChoice {
                model: Some("claude-haiku-4-5".into()),
                effort: Some("max".into())
            }
        );
        assert_eq!(
            policy(json!({"model": "auto"})).unwrap().model.as_deref(),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(policy(json!({"model": ""})).unwrap().model, None);
    }

    #[test]
    fn a_policy_answer_dcl_cannot_follow_fails_the_call() {
        let byok = policy(
            json!({"model": "m", "custom_model": {"provider": "p", "api_key": "k", "style": "openai"}}),
        );
        assert!(byok.unwrap_err().contains("custom_model"));
        let bad = policy(json!({"parameters": {"reasoningEffort": "enormous"}}));
        assert!(bad.unwrap_err().contains("reasoningEffort"));
    }
}
