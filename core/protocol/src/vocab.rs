//! The closed vocabularies of the wire: result subtypes, stop and terminal reasons, permission
//! modes, statuses.
//!
//! The message structs keep these fields as `String`, so a line from a newer peer still
//! decodes and round-trips unchanged; the exported schema closes them to these enums
//! (`#[schemars(with = …)]`), so a line dcl writes with any other value fails validation.
//! dcl's emission sites build the strings from these enums ([`ResultSubtype::as_str`], …).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The hook events' one list lives with the engine's event contract.
pub use dcl_events::HookEventName;

macro_rules! vocab {
    ($( $(#[$doc:meta])* $name:ident { $( $(#[$vdoc:meta])* $variant:ident = $wire:literal, )* } )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
            pub enum $name {
                $( $(#[$vdoc])* #[serde(rename = $wire)] $variant, )*
            }

            impl $name {
                /// Every value, in wire order.
                pub const ALL: &'static [$name] = &[$($name::$variant),*];

                /// The wire spelling.
                pub const fn as_str(self) -> &'static str {
                    match self {
                        $( $name::$variant => $wire, )*
                    }
                }

                /// The value with this wire spelling, if it is one.
                pub fn parse(wire: &str) -> Option<Self> {
                    match wire {
                        $( $wire => Some($name::$variant), )*
                        _ => None,
                    }
                }
            }

            impl std::fmt::Display for $name {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str(self.as_str())
                }
            }

            impl From<$name> for String {
                fn from(value: $name) -> String {
                    value.as_str().to_string()
                }
            }
        )*
    };
}

vocab! {
    /// `result.subtype`.
    ResultSubtype {
        Success = "success",
        ErrorMaxTurns = "error_max_turns",
        ErrorDuringExecution = "error_during_execution",
        ErrorMaxBudgetUsd = "error_max_budget_usd",
        ErrorMaxStructuredOutputRetries = "error_max_structured_output_retries",
    }

    /// Messages-API `stop_reason` (assistant lines and `result`).
    StopReason {
        EndTurn = "end_turn",
        MaxTokens = "max_tokens",
        StopSequence = "stop_sequence",
        ToolUse = "tool_use",
        PauseTurn = "pause_turn",
        Refusal = "refusal",
        ModelContextWindowExceeded = "model_context_window_exceeded",
    }

    /// `result.terminal_reason`: the SDK's list plus dcl's own three.
    TerminalReason {
        Completed = "completed",
        AbortedStreaming = "aborted_streaming",
        AbortedTools = "aborted_tools",
        MaxTurns = "max_turns",
        HookStopped = "hook_stopped",
        StopHookPrevented = "stop_hook_prevented",
        BudgetExhausted = "budget_exhausted",
        ToolDeferred = "tool_deferred",
        ToolDeferredUnavailable = "tool_deferred_unavailable",
        ApiError = "api_error",
        ModelError = "model_error",
        PromptTooLong = "prompt_too_long",
        BlockingLimit = "blocking_limit",
        RapidRefillBreaker = "rapid_refill_breaker",
        ImageError = "image_error",
        MalformedToolUseExhausted = "malformed_tool_use_exhausted",
        BackgroundRequested = "background_requested",
        StructuredOutputRetryExhausted = "structured_output_retry_exhausted",
        /// dcl: the model never called the structured-output tool.
        StructuredOutputMissing = "structured_output_missing",
        /// dcl: the host's message was refused before it became a turn.
        PromptRefused = "prompt_refused",
        /// dcl: `--resume` / `--continue` asked for a session this build cannot resume.
        ResumeUnsupported = "resume_unsupported",
        /// dcl: the session asked for (`--resume`, `--continue`…) could not be opened.
        SessionUnavailable = "session_unavailable",
        TurnSetupFailed = "turn_setup_failed",
    }

    /// `result.startup_failure_reason`: why a session could not start, as the TS SDK's
    /// `SDKStartupFailureReason` lists it (0.3.334). dcl sends `resume_target_not_found`; the
    /// rest are here so a line naming them still validates.
    StartupFailureReason {
        OrgPinApiKeyConflict = "org_pin_api_key_conflict",
        ProviderNotAllowed = "provider_not_allowed",
        OrgVerifyFailed = "org_verify_failed",
        OrgPinMismatch = "org_pin_mismatch",
        ManagedSettingsInvalid = "managed_settings_invalid",
        RemoteSettingsRequiredUnavailable = "remote_settings_required_unavailable",
        GatewaySigninRequired = "gateway_signin_required",
        GatewayAccessDenied = "gateway_access_denied",
        ProxyInvalid = "proxy_invalid",
        TempDirUnusable = "temp_dir_unusable",
        CwdUnavailable = "cwd_unavailable",
        ShellToolMissing = "shell_tool_missing",
        SessionHeldByBackground = "session_held_by_background",
        WorktreeResumeRefused = "worktree_resume_refused",
        WorktreeUnverified = "worktree_unverified",
        CliVersionTooOld = "cli_version_too_old",
        BypassRoot = "bypass_root",
        OrgConfigRequiredUnavailable = "org_config_required_unavailable",
        OrgConfigRefused = "org_config_refused",
        SandboxRequiredUnavailable = "sandbox_required_unavailable",
        InitializeNotFirst = "initialize_not_first",
        ConfigFileInvalid = "config_file_invalid",
        ManagedSettingsNotDelivered = "managed_settings_not_delivered",
        InitializeFieldsNotDelivered = "initialize_fields_not_delivered",
        SideloadFlagsDisabled = "sideload_flags_disabled",
        ResumeTargetNotFound = "resume_target_not_found",
        ConsumerTermsReviewInTerminal = "consumer_terms_review_in_terminal",
        ConsumerTermsAcceptOnWeb = "consumer_terms_accept_on_web",
    }

    /// A permission mode as dcl reports it (`permissionMode`, `current_permission_mode`,
    /// `set_permission_mode`'s answer). dcl normalizes Qoder's spellings on input.
    PermissionModeName {
        Default = "default",
        AcceptEdits = "acceptEdits",
        Plan = "plan",
        BypassPermissions = "bypassPermissions",
        DontAsk = "dontAsk",
        Auto = "auto",
    }

    /// `system/status.status` (besides `null`).
    StatusKind {
        Requesting = "requesting",
        Compacting = "compacting",
    }

    /// An MCP server's state in `system/init.mcp_servers` and `mcp_status`.
    McpServerState {
        Connected = "connected",
        Failed = "failed",
        NeedsAuth = "needs-auth",
        Pending = "pending",
        Disabled = "disabled",
    }

    /// `assistant.error` on a synthetic line that reports a failed request.
    AssistantError {
        AuthenticationFailed = "authentication_failed",
        OauthOrgNotAllowed = "oauth_org_not_allowed",
        AccountOnHold = "account_on_hold",
        VerificationRequired = "verification_required",
        BillingError = "billing_error",
        RateLimit = "rate_limit",
        Overloaded = "overloaded",
        InvalidRequest = "invalid_request",
        ModelNotFound = "model_not_found",
        ServerError = "server_error",
        Unknown = "unknown",
        MaxOutputTokens = "max_output_tokens",
        CloudCredentialError = "cloud_credential_error",
    }

    /// `system/informational.level`.
    InformationalLevel {
        Info = "info",
        Notice = "notice",
        Warning = "warning",
        Error = "error",
    }

    /// `system/task_notification.status`.
    TaskEndStatus {
        Completed = "completed",
        Failed = "failed",
        Stopped = "stopped",
    }

    /// `system/session_state_changed.state`.
    SessionState {
        Idle = "idle",
        Running = "running",
        RequiresAction = "requires_action",
    }

    /// `compact_boundary.compact_metadata.trigger`.
    CompactTrigger {
        Manual = "manual",
        Auto = "auto",
    }

    /// `system/hook_response.outcome`.
    HookOutcome {
        Success = "success",
        Error = "error",
        Cancelled = "cancelled",
    }

    /// `ModelInfo.supportedEffortLevels` (the TS SDK's set; dcl reads `xhigh` as `max`).
    EffortLevel {
        Low = "low",
        Medium = "medium",
        High = "high",
        Xhigh = "xhigh",
        Max = "max",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_spellings_round_trip() {
        for v in ResultSubtype::ALL {
            assert_eq!(ResultSubtype::parse(v.as_str()), Some(*v));
            assert_eq!(
                serde_json::to_value(v).unwrap(),
                serde_json::json!(v.as_str())
            );
        }
        assert_eq!(McpServerState::NeedsAuth.as_str(), "needs-auth");
        assert_eq!(PermissionModeName::parse("bogusMode"), None);
        assert_eq!(String::from(StopReason::EndTurn), "end_turn");
    }
}
