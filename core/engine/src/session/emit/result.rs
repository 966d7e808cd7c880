//! The `result` line that ends each turn, and the synthetic `assistant` line an API
//! failure leaves: the turn says how it ended ([`TurnSummary`]), this builds the line the
//! dialects start from.

use dcl_model::ModelError;
use dcl_protocol::{
    AssistantError, AssistantMessage, AssistantPayload, ContentBlock, Extra, ModelUsage,
    PermissionDenial, ResultMessage, ResultSubtype, StartupFailureReason, StopReason,
    TerminalReason, Usage,
};
use serde_json::{Value, json};

/// The variable part of a `result` line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ending {
    pub subtype: ResultSubtype,
    pub is_error: bool,
    pub result: Option<String>,
    pub terminal_reason: TerminalReason,
    pub errors: Option<Vec<String>>,
    pub api_error_status: Option<u16>,
    /// Why the session could not start, in the TS SDK's words (`startup_failure_reason`).
    pub startup_failure_reason: Option<StartupFailureReason>,
}

impl Ending {
    pub(crate) fn success(result: Option<String>, terminal_reason: TerminalReason) -> Self {
        Ending {
            subtype: ResultSubtype::Success,
            is_error: false,
            result,
            terminal_reason,
            errors: None,
            api_error_status: None,
            startup_failure_reason: None,
        }
    }

    pub(crate) fn error(
        subtype: ResultSubtype,
        terminal_reason: TerminalReason,
        error: String,
    ) -> Self {
        Ending {
            subtype,
            is_error: true,
            result: None,
            terminal_reason,
            errors: Some(vec![error]),
            api_error_status: None,
            startup_failure_reason: None,
        }
    }
}

/// Everything a turn's `result` line reports.
#[derive(Debug)]
pub(crate) struct TurnSummary {
    pub ending: Ending,
    pub duration_ms: u64,
    pub duration_api_ms: u64,
    pub num_turns: u32,
    pub stop_reason: Option<String>,
    /// The session's cost so far.
    pub total_cost_usd: f64,
    /// The turn's token counts as the model reported them.
    pub usage: Usage,
    /// The session's usage per model, in the order first used.
    pub model_usage: Vec<(String, ModelUsage)>,
    pub permission_denials: Vec<PermissionDenial>,
    pub structured_output: Option<Value>,
    /// The call a PreToolUse hook deferred, which ended the turn.
    pub deferred_tool_use: Option<Value>,
    /// The prompt's `origin`, echoed back.
    pub origin: Option<Value>,
}

/// The `result` line as the Claude dialect sends it (the others start from it).
pub(super) fn message(s: TurnSummary) -> ResultMessage {
    let mut extra = Extra::new();
    if let Some(d) = s.deferred_tool_use {
        extra.insert("deferred_tool_use".into(), d);
    }
    if let Some(o) = s.origin {
        extra.insert("origin".into(), o);
    }
    let end = s.ending;
    let mut result = ResultMessage {
        subtype: end.subtype.into(),
        is_error: end.is_error,
        duration_ms: s.duration_ms,
        duration_api_ms: s.duration_api_ms,
        num_turns: s.num_turns,
        result: end.result,
        stop_reason: s.stop_reason,
        session_id: String::new(),
        total_cost_usd: s.total_cost_usd,
        usage: full_usage(&s.usage),
        model_usage: Default::default(),
        permission_denials: s.permission_denials,
        terminal_reason: Some(end.terminal_reason.into()),
        errors: end.errors,
        structured_output: s.structured_output,
        api_error_status: Some(end.api_error_status.map_or(Value::Null, |s| json!(s))),
        startup_failure_reason: end.startup_failure_reason.map(String::from),
        uuid: None,
        extra,
    };
    result.set_model_usage(s.model_usage.iter().map(|(m, u)| (m.as_str(), u)));
    result
}

/// Usage as the SDKs type it (`NonNullableUsage`): the token counts plus the keys the
/// Messages API always reports, filled with their neutral values where dcl has none. The
/// saved session state keeps this shape too, so a resume reads what a result said.
pub(crate) fn full_usage(u: &Usage) -> Usage {
    let mut u = u.clone();
    let defaults = [
        (
            "server_tool_use",
            json!({"web_search_requests": 0, "web_fetch_requests": 0}),
        ),
        ("service_tier", json!("standard")),
        (
            "cache_creation",
            json!({"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}),
        ),
        ("inference_geo", json!("")),
        ("iterations", json!([])),
        ("speed", json!("standard")),
    ];
    for (k, v) in defaults {
        u.extra.entry(k).or_insert(v);
    }
    u
}

/// The synthetic `assistant` line that tells the host a model request failed with `e`.
pub(super) fn api_error(e: &ModelError) -> AssistantMessage {
    let kind = AssistantError::parse(e.assistant_error()).unwrap_or(AssistantError::Unknown);
    AssistantMessage {
        message: AssistantPayload {
            id: super::new_uuid(),
            kind: "message".into(),
            role: "assistant".into(),
            model: "<synthetic>".into(),
            content: vec![ContentBlock::text(e.to_string())],
            stop_reason: Some(StopReason::StopSequence.into()),
            stop_sequence: Some(String::new()),
            usage: Some(full_usage(&Usage::default())),
            extra: Extra::new(),
        },
        parent_tool_use_id: dcl_protocol::parent_tool_use_id_null(),
        session_id: String::new(),
        uuid: String::new(),
        error: Some(kind.into()),
        extra: Extra::new(),
    }
}
