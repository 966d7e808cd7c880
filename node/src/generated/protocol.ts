/* eslint-disable */
/**
 * The dcl protocol's messages, generated from core/protocol/schema/dcl-protocol.schema.json
 * by scripts/gen-types.mjs (json-schema-to-typescript). Do not edit: run `npm run gen:types`.
 */

/**
 * One line of stream-json, in either direction.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "Message".
 */
export type Message =
  | (UserMessage & {
      type: "user";
      [k: string]: unknown;
    })
  | (AssistantMessage & {
      type: "assistant";
      [k: string]: unknown;
    })
  | (SystemMessage & {
      type: "system";
      [k: string]: unknown;
    })
  | (ResultMessage & {
      type: "result";
      [k: string]: unknown;
    })
  | (StreamEventMessage & {
      type: "stream_event";
      [k: string]: unknown;
    })
  | (ControlRequestEnvelope & {
      type: "control_request";
      [k: string]: unknown;
    })
  | (ControlResponseEnvelope & {
      type: "control_response";
      [k: string]: unknown;
    })
  | (ControlCancelRequest & {
      type: "control_cancel_request";
      [k: string]: unknown;
    })
  | (PromptSuggestionMessage & {
      type: "prompt_suggestion";
      [k: string]: unknown;
    })
  | (ToolProgressMessage & {
      type: "tool_progress";
      [k: string]: unknown;
    })
  | (TranscriptMirrorMessage & {
      type: "transcript_mirror";
      [k: string]: unknown;
    })
  | (ConversationResetMessage & {
      type: "conversation_reset";
      [k: string]: unknown;
    })
  | {
      type: "keep_alive";
      [k: string]: unknown;
    }
  | (LegacyTextMessage & {
      type: "text";
      [k: string]: unknown;
    })
  | (LegacyToolStartMessage & {
      type: "tool_start";
      [k: string]: unknown;
    })
  | (LegacyToolResultMessage & {
      type: "tool_result";
      [k: string]: unknown;
    })
  | (LegacyUsageMessage & {
      type: "usage";
      [k: string]: unknown;
    });
/**
 * A user message's content: a string or a list of blocks.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "MessageContent".
 */
export type MessageContent = string | unknown[];
/**
 * One block of message content.
 *
 * Unknown block types are preserved verbatim in [`ContentBlock::Other`].
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ContentBlock".
 */
export type ContentBlock = KnownBlock | unknown;
/**
 * The block types dcl understands.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "KnownBlock".
 */
export type KnownBlock =
  | TextBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ToolResultBlock
  | ImageBlock
  | DocumentBlock;
/**
 * Messages-API `stop_reason` (assistant lines and `result`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "StopReason".
 */
export type StopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded";
/**
 * `assistant.error` on a synthetic line that reports a failed request.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "AssistantError".
 */
export type AssistantError =
  | "authentication_failed"
  | "oauth_org_not_allowed"
  | "account_on_hold"
  | "verification_required"
  | "billing_error"
  | "rate_limit"
  | "overloaded"
  | "invalid_request"
  | "model_not_found"
  | "server_error"
  | "unknown"
  | "max_output_tokens"
  | "cloud_credential_error";
/**
 * The schema of a `system` line: one branch per typed subtype, so `subtype` is closed
 * and each branch lists its own required fields. Never built; it only describes.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemMessage".
 */
export type SystemMessage =
  | SystemInit
  | SystemStatus
  | SystemApiRetry
  | SystemThinkingTokens
  | SystemPermissionDenied
  | SystemInformational
  | SystemHookStarted
  | SystemHookProgress
  | SystemHookResponse
  | SystemCompactBoundary
  | SystemTaskStarted
  | SystemTaskProgress
  | SystemTaskNotification
  | SystemTaskUpdated
  | SystemSessionStateChanged
  | SystemBackgroundTasksChanged
  | SystemPlanModeChanged;
/**
 * `result.subtype`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ResultSubtype".
 */
export type ResultSubtype =
  | "success"
  | "error_max_turns"
  | "error_during_execution"
  | "error_max_budget_usd"
  | "error_max_structured_output_retries";
/**
 * `result.terminal_reason`: the SDK's list plus dcl's own three.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "TerminalReason".
 */
export type TerminalReason =
  | (
      | "completed"
      | "aborted_streaming"
      | "aborted_tools"
      | "max_turns"
      | "hook_stopped"
      | "stop_hook_prevented"
      | "budget_exhausted"
      | "tool_deferred"
      | "tool_deferred_unavailable"
      | "api_error"
      | "model_error"
      | "prompt_too_long"
      | "blocking_limit"
      | "rapid_refill_breaker"
      | "image_error"
      | "malformed_tool_use_exhausted"
      | "background_requested"
      | "structured_output_retry_exhausted"
      | "turn_setup_failed"
    )
  | "structured_output_missing"
  | "prompt_refused"
  | "resume_unsupported"
  | "session_unavailable";
/**
 * `result.startup_failure_reason`: why a session could not start, as the TS SDK's
 * `SDKStartupFailureReason` lists it (0.3.334). dcl sends `resume_target_not_found`; the
 * rest are here so a line naming them still validates.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "StartupFailureReason".
 */
export type StartupFailureReason =
  | "org_pin_api_key_conflict"
  | "provider_not_allowed"
  | "org_verify_failed"
  | "org_pin_mismatch"
  | "managed_settings_invalid"
  | "remote_settings_required_unavailable"
  | "gateway_signin_required"
  | "gateway_access_denied"
  | "proxy_invalid"
  | "temp_dir_unusable"
  | "cwd_unavailable"
  | "shell_tool_missing"
  | "session_held_by_background"
  | "worktree_resume_refused"
  | "worktree_unverified"
  | "cli_version_too_old"
  | "bypass_root"
  | "org_config_required_unavailable"
  | "org_config_refused"
  | "sandbox_required_unavailable"
  | "initialize_not_first"
  | "config_file_invalid"
  | "managed_settings_not_delivered"
  | "initialize_fields_not_delivered"
  | "sideload_flags_disabled"
  | "resume_target_not_found"
  | "consumer_terms_review_in_terminal"
  | "consumer_terms_accept_on_web";
/**
 * The body of a control response: success with an optional payload, or an error.
 *
 * Extras seen on the wire: `pending_permission_requests` / `pending_user_dialog_requests`
 * (success), TS `error_code` and Qoder `code`, `retryable`, `details` (error).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ControlResponse".
 */
export type ControlResponse =
  | {
      subtype: "success";
      request_id: string;
      response?: unknown;
      [k: string]: unknown;
    }
  | {
      subtype: "error";
      request_id: string;
      error: string;
      [k: string]: unknown;
    };
/**
 * Every host -> dcl control request dcl understands, decoded from the envelope's
 * `request` object by [`HostRequest::parse`]. Claude (§5.3, §7.6) and Qoder (§3.3)
 * subtypes; a subtype not listed here parses as [`RequestParseError::Unknown`].
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "HostRequest".
 */
export type HostRequest =
  | InitializeRequest
  | InterruptRequest
  | SetPermissionModeRequest
  | SetModelRequest
  | SetMaxThinkingTokensRequest
  | McpStatusRequest
  | GetContextUsageRequest
  | CancelAsyncMessageRequest
  | RewindFilesRequest
  | McpToggleRequest
  | McpReconnectRequest
  | StopTaskRequest
  | ApplyFlagSettingsRequest
  | EmptyRequest
  | ReloadPluginsRequest
  | SeedReadStateRequest
  | McpSetServersRequest
  | McpMessageRequest
  | UpdateSettingsRequest
  | McpReadResourceRequest
  | EmptyRequest1
  | EmptyRequest2
  | BackgroundTasksRequest
  | GetTaskOutputRequest
  | EmptyRequest3
  | EmptyRequest4
  | GetUsageRequest
  | ReadFileRequest
  | SetMcpPermissionModeOverrideRequest
  | SetProxyRequest
  | SetPlanModeRequest
  | EmptyRequest5
  | SetGoalRequest
  | EmptyRequest6
  | EmptyRequest7
  | EmptyRequest8
  | SetGoalMaxTurnsRequest
  | SideQuestionRequest
  | McpAuthenticateRequest
  | McpOauthCallbackUrlRequest
  | McpInjectTokenRequest
  | McpReconnectRequest1
  | EmptyRequest9
  | EmptyRequest10
  | GetModelsRequest
  | AddDirectoriesRequest
  | GenerateSessionTitleRequest
  | RewindRequest
  | EmptyRequest11
  | EmptyRequest12
  | EmptyRequest13
  | EmptyRequest14
  | EmptyRequest15
  | RenameSessionRequest
  | UpdateQueuedMessageRequest
  | SetCwdRequest
  | EmptyRequest16
  | EmptyRequest17
  | EmptyRequest18
  | RegisterRepoRootRequest;
/**
 * A system prompt given in `initialize`: a string or (TS SDK) an array of strings.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemPromptValue".
 */
export type SystemPromptValue = string | string[];
/**
 * A tool result is either plain text or a list of blocks (MCP tools keep their blocks).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ToolResultContent".
 */
export type ToolResultContent = string | ContentBlock[];
/**
 * Every dcl -> host control request. Each struct carries its own `subtype` tag, so
 * the enum serializes untagged; decode with [`DclRequest::parse`].
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "DclRequest".
 */
export type DclRequest =
  | CanUseToolRequest
  | HookCallbackRequest
  | McpMessageOut
  | ElicitationRequest
  | McpOauthRequiredRequest
  | GetModelPolicyRequest
  | FetchServiceAccountTokenRequest
  | FetchJobTokenRequest
  | MemoryShouldGenerateRequest
  | SkillEvolutionShouldReviewRequest
  | ResolveSessionArtifactsRequest;
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "CanUseToolTag".
 */
export type CanUseToolTag = "can_use_tool";
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "HookCallbackTag".
 */
export type HookCallbackTag = "hook_callback";
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpMessageTag".
 */
export type McpMessageTag = "mcp_message";
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ElicitationTag".
 */
export type ElicitationTag = "elicitation";
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpOauthRequiredTag".
 */
export type McpOauthRequiredTag = "mcp_oauth_required";
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GetModelPolicyTag".
 */
export type GetModelPolicyTag = "get_model_policy";
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "FetchServiceAccountTokenTag".
 */
export type FetchServiceAccountTokenTag = "fetch_service_account_token";
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "FetchJobTokenTag".
 */
export type FetchJobTokenTag = "fetch_job_token";
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "MemoryShouldGenerateTag".
 */
export type MemoryShouldGenerateTag = "memory_should_generate";
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SkillEvolutionShouldReviewTag".
 */
export type SkillEvolutionShouldReviewTag = "skill_evolution_should_review";
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ResolveSessionArtifactsTag".
 */
export type ResolveSessionArtifactsTag = "resolve_session_artifacts";
/**
 * The host's answer to `can_use_tool`.
 *
 * TS adds `toolUseID` and `decisionClassification`; Qoder `permissionScope` (kept in `extra`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PermissionDecision".
 */
export type PermissionDecision =
  | {
      behavior: "allow";
      updatedInput?: unknown;
      updatedPermissions?: unknown[] | null;
      [k: string]: unknown;
    }
  | {
      behavior: "deny";
      message: string;
      interrupt?: boolean | null;
      [k: string]: unknown;
    };
/**
 * One `PermissionUpdate` (in `updatedPermissions` and `permission_suggestions`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PermissionUpdate".
 */
export type PermissionUpdate =
  | PermissionRulesUpdate
  | PermissionRulesUpdate1
  | PermissionRulesUpdate2
  | {
      type: "setMode";
      mode: string;
      destination?: string | null;
      [k: string]: unknown;
    }
  | PermissionDirectoriesUpdate
  | PermissionDirectoriesUpdate1;
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ElicitationAction".
 */
export type ElicitationAction = "accept" | "decline" | "cancel";
/**
 * `ModelInfo.supportedEffortLevels` (the TS SDK's set; dcl reads `xhigh` as `max`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "EffortLevel".
 */
export type EffortLevel = "low" | "medium" | "high" | "xhigh" | "max";
/**
 * A permission mode as dcl reports it (`permissionMode`, `current_permission_mode`,
 * `set_permission_mode`'s answer). dcl normalizes Qoder's spellings on input.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PermissionModeName".
 */
export type PermissionModeName =
  "default" | "acceptEdits" | "plan" | "bypassPermissions" | "dontAsk" | "auto";
/**
 * An MCP server's state in `system/init.mcp_servers` and `mcp_status`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpServerState".
 */
export type McpServerState = "connected" | "failed" | "needs-auth" | "pending" | "disabled";
/**
 * `system/status.status` (besides `null`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "StatusKind".
 */
export type StatusKind = "requesting" | "compacting";
/**
 * `system/informational.level`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "InformationalLevel".
 */
export type InformationalLevel = "info" | "notice" | "warning" | "error";
/**
 * `system/hook_*.hook_event`: the reference's hook event names, all 35 of the TS SDK's
 * `HOOK_EVENTS` (0.3.335), in its order; dcl fires a subset (see the engine's hooks).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "HookEventName".
 */
export type HookEventName =
  | "PreToolUse"
  | "PostToolUse"
  | "PostToolUseFailure"
  | "PostToolBatch"
  | "Notification"
  | "UserPromptSubmit"
  | "UserPromptExpansion"
  | "SessionStart"
  | "SessionEnd"
  | "Stop"
  | "StopFailure"
  | "Interrupt"
  | "SubagentStart"
  | "SubagentStop"
  | "PreCompact"
  | "PostCompact"
  | "PreModelSwitch"
  | "PostModelSwitch"
  | "PermissionRequest"
  | "PermissionDenied"
  | "Setup"
  | "TeammateIdle"
  | "TaskCreated"
  | "TaskCompleted"
  | "Elicitation"
  | "ElicitationResult"
  | "ConfigChange"
  | "WorktreeCreate"
  | "WorktreeRemove"
  | "InstructionsLoaded"
  | "CwdChanged"
  | "FileChanged"
  | "DirectoryAdded"
  | "MessageDisplay"
  | "PreSkillShellCommand";
/**
 * `system/hook_response.outcome`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "HookOutcome".
 */
export type HookOutcome = "success" | "error" | "cancelled";
/**
 * `compact_boundary.compact_metadata.trigger`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "CompactTrigger".
 */
export type CompactTrigger = "manual" | "auto";
/**
 * `system/task_notification.status`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "TaskEndStatus".
 */
export type TaskEndStatus = "completed" | "failed" | "stopped";
/**
 * `system/session_state_changed.state`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SessionState".
 */
export type SessionState = "idle" | "running" | "requires_action";

/**
 * Every type of the dcl protocol; see `Message` for one line of stream-json.
 */
export interface DclProtocol {}
/**
 * A `user` line in either direction: a host prompt, a tool result, or a replay.
 *
 * The schema (what dcl writes) requires `uuid`, `session_id` and `parent_tool_use_id`; a
 * host's line may lack them.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "UserMessage".
 */
export interface UserMessage {
  message: UserPayload;
  uuid: string | null;
  /**
   * The Agent tool call a subagent line belongs to; `null` on main-thread lines (dcl always
   * writes the key). Rust tri-state: `None` = key absent, `Some(None)` = `null`,
   * `Some(Some(id))` = a subagent line. The constructors and [`parent_tool_use_id_null`]
   * give the `null` form; a literal `None` drops the key.
   */
  parent_tool_use_id: string | null;
  session_id: string | null;
  timestamp?: string | null;
  tool_use_result?: unknown;
  isReplay?: boolean | null;
  [k: string]: unknown;
}
/**
 * `message` of a `user` line: a role and string-or-blocks content.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "UserPayload".
 */
export interface UserPayload {
  role: string;
  content: MessageContent;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "AssistantMessage".
 */
export interface AssistantMessage {
  message: AssistantPayload;
  /**
   * The Agent tool call a subagent line belongs to; `null` on main-thread lines (dcl always
   * writes the key). Rust tri-state: `None` = key absent, `Some(None)` = `null`,
   * `Some(Some(id))` = a subagent line. The constructors and [`parent_tool_use_id_null`]
   * give the `null` form; a literal `None` drops the key.
   */
  parent_tool_use_id: string | null;
  session_id: string;
  uuid: string;
  /**
   * Set on synthetic assistant lines that report an API failure.
   */
  error?: AssistantError | null;
  [k: string]: unknown;
}
/**
 * `message` of an `assistant` line: one Messages-API response (one block per line).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "AssistantPayload".
 */
export interface AssistantPayload {
  id: string;
  type: string;
  role: string;
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage?: Usage | null;
  [k: string]: unknown;
}
export interface TextBlock {
  type: "text";
  [k: string]: unknown;
}
export interface ThinkingBlock {
  type: "thinking";
  [k: string]: unknown;
}
export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  [k: string]: unknown;
}
export interface ToolUseBlock {
  type: "tool_use";
  [k: string]: unknown;
}
export interface ToolResultBlock {
  type: "tool_result";
  [k: string]: unknown;
}
export interface ImageBlock {
  type: "image";
  [k: string]: unknown;
}
export interface DocumentBlock {
  type: "document";
  [k: string]: unknown;
}
/**
 * Token usage as the Messages API reports it.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "Usage".
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  [k: string]: unknown;
}
/**
 * `system/init`: at the start of every turn (Qoder: also before the `initialize` answer).
 */
export interface SystemInit {
  subtype: "init";
  [k: string]: unknown;
}
/**
 * `system/status`: `status` is `requesting`, `compacting` or `null`; `permissionMode` after a
 * mode change.
 */
export interface SystemStatus {
  subtype: "status";
  [k: string]: unknown;
}
/**
 * `system/api_retry`: one retry of a failed model request.
 */
export interface SystemApiRetry {
  subtype: "api_retry";
  [k: string]: unknown;
}
/**
 * `system/thinking_tokens`: estimated thinking so far (with partial messages).
 */
export interface SystemThinkingTokens {
  subtype: "thinking_tokens";
  [k: string]: unknown;
}
/**
 * `system/permission_denied`: a tool call was refused without asking.
 */
export interface SystemPermissionDenied {
  subtype: "permission_denied";
  [k: string]: unknown;
}
/**
 * `system/informational`, e.g. a hook's `systemMessage` (`"PreToolUse:Bash says: …"`).
 */
export interface SystemInformational {
  subtype: "informational";
  [k: string]: unknown;
}
/**
 * `system/hook_started` (with `--include-hook-events`): a command hook began.
 */
export interface SystemHookStarted {
  subtype: "hook_started";
  [k: string]: unknown;
}
/**
 * `system/hook_progress` (with `--include-hook-events`): a running hook's output so far.
 */
export interface SystemHookProgress {
  subtype: "hook_progress";
  [k: string]: unknown;
}
/**
 * `system/hook_response` (with `--include-hook-events`): a hook ended.
 */
export interface SystemHookResponse {
  subtype: "hook_response";
  [k: string]: unknown;
}
/**
 * `system/compact_boundary`: the conversation was compacted here.
 */
export interface SystemCompactBoundary {
  subtype: "compact_boundary";
  [k: string]: unknown;
}
/**
 * `system/task_started`: a subagent or background task began.
 */
export interface SystemTaskStarted {
  subtype: "task_started";
  [k: string]: unknown;
}
/**
 * `system/task_progress`. Claude requires `usage`; Qoder makes it optional.
 */
export interface SystemTaskProgress {
  subtype: "task_progress";
  [k: string]: unknown;
}
/**
 * `system/task_notification`: a task ended (`completed`, `failed` or `stopped`).
 */
export interface SystemTaskNotification {
  subtype: "task_notification";
  [k: string]: unknown;
}
/**
 * `system/task_updated`: `patch{status?, description?, end_time?, error?, …}`.
 */
export interface SystemTaskUpdated {
  subtype: "task_updated";
  [k: string]: unknown;
}
/**
 * `system/session_state_changed`: `idle`, `running` or `requires_action`.
 */
export interface SystemSessionStateChanged {
  subtype: "session_state_changed";
  [k: string]: unknown;
}
/**
 * `system/background_tasks_changed`: the full list (replace semantics).
 */
export interface SystemBackgroundTasksChanged {
  subtype: "background_tasks_changed";
  [k: string]: unknown;
}
/**
 * Qoder `system/plan_mode_changed`.
 */
export interface SystemPlanModeChanged {
  subtype: "plan_mode_changed";
  [k: string]: unknown;
}
/**
 * The `result` line that ends every turn.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ResultMessage".
 */
export interface ResultMessage {
  subtype: ResultSubtype;
  is_error: boolean;
  duration_ms: number;
  duration_api_ms: number;
  num_turns: number;
  result?: string | null;
  stop_reason: StopReason | null;
  session_id: string;
  total_cost_usd: number;
  usage: Usage1;
  /**
   * Per model id; each entry is a [`ModelUsage`] (see [`ResultMessage::model_usage_typed`]).
   */
  modelUsage: {
    [k: string]: ModelUsage;
  };
  permission_denials: PermissionDenial[];
  terminal_reason?: TerminalReason | null;
  errors?: string[] | null;
  structured_output?: unknown;
  /**
   * `None` = absent; `Some(Value::Null)` = an explicit `null` (kept on a round trip).
   */
  api_error_status?: {
    [k: string]: unknown;
  };
  /**
   * Why the session could not start, on its error result (the TS SDK's
   * `SDKStartupFailureReason`); dcl sends `resume_target_not_found` for a `--resume` no
   * home holds. Claude dialect only.
   */
  startup_failure_reason?: StartupFailureReason | null;
  uuid: string | null;
  [k: string]: unknown;
}
/**
 * Token usage as the Messages API reports it.
 */
export interface Usage1 {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  [k: string]: unknown;
}
/**
 * Per-model usage and cost, keyed by model id in `modelUsage`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ModelUsage".
 */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
  maxOutputTokens: number;
  [k: string]: unknown;
}
/**
 * A tool call that a rule, a mode, a hook or the host refused.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PermissionDenial".
 */
export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: unknown;
  [k: string]: unknown;
}
/**
 * A raw Messages-API stream event, forwarded with `--include-partial-messages`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "StreamEventMessage".
 */
export interface StreamEventMessage {
  event: unknown;
  session_id: string;
  uuid: string;
  /**
   * The Agent tool call a subagent line belongs to; `null` on main-thread lines (dcl always
   * writes the key). Rust tri-state: `None` = key absent, `Some(None)` = `null`,
   * `Some(Some(id))` = a subagent line. The constructors and [`parent_tool_use_id_null`]
   * give the `null` form; a literal `None` drops the key.
   */
  parent_tool_use_id: string | null;
  [k: string]: unknown;
}
/**
 * `{"type":"control_request","request_id":…,"request":{…}}` in either direction.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ControlRequestEnvelope".
 */
export interface ControlRequestEnvelope {
  request_id: string;
  request: unknown;
  [k: string]: unknown;
}
/**
 * `{"type":"control_response","response":{…}}` in either direction.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ControlResponseEnvelope".
 */
export interface ControlResponseEnvelope {
  response: ControlResponse;
  [k: string]: unknown;
}
/**
 * `{"type":"control_cancel_request","request_id":…}`: the sender no longer wants an answer.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ControlCancelRequest".
 */
export interface ControlCancelRequest {
  request_id: string;
  [k: string]: unknown;
}
/**
 * `prompt_suggestion`: the next thing the user may want to say.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PromptSuggestionMessage".
 */
export interface PromptSuggestionMessage {
  suggestion: string;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `tool_progress`: a tool call is still running (the TS SDK's `SDKToolProgressMessage`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ToolProgressMessage".
 */
export interface ToolProgressMessage {
  tool_use_id: string;
  tool_name: string;
  /**
   * The Agent call whose subagent made this call; `null` on the main thread.
   */
  parent_tool_use_id: string | null;
  elapsed_time_seconds: number;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `transcript_mirror` (with `--session-mirror`): transcript entries dcl has committed to
 * disk, for the SDK's `SessionStore`; `filePath` is the transcript's absolute path.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "TranscriptMirrorMessage".
 */
export interface TranscriptMirrorMessage {
  filePath: string;
  entries: unknown[];
  [k: string]: unknown;
}
/**
 * `conversation_reset` (after `/clear`): the history is gone and a new session id starts;
 * `session_id` is the old one.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ConversationResetMessage".
 */
export interface ConversationResetMessage {
  new_conversation_id: string;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * Legacy `{"type":"text","text":…}`: one per finished text block of the assistant.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "LegacyTextMessage".
 */
export interface LegacyTextMessage {
  text: string;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * Legacy `{"type":"tool_start",…}`: a tool call is complete and about to run.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "LegacyToolStartMessage".
 */
export interface LegacyToolStartMessage {
  tool_use_id: string;
  name: string;
  input: unknown;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * Legacy `{"type":"tool_result",…}`: a tool finished; `content` is its text.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "LegacyToolResultMessage".
 */
export interface LegacyToolResultMessage {
  tool_use_id: string;
  content: string;
  is_error: boolean;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * Legacy `{"type":"usage",…}`: token usage of this turn and the session's cost so far, just
 * before `result`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "LegacyUsageMessage".
 */
export interface LegacyUsageMessage {
  usage: Usage;
  total_cost_usd: number;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `initialize`: everything the SDK options carry that is not an argv flag.
 *
 * Claude sends `hooks: null` when there are none; Qoder omits `hooks`. Both read as `None`
 * (and serialize as `null`).
 */
export interface InitializeRequest {
  subtype: "initialize";
  [k: string]: unknown;
}
export interface InterruptRequest {
  subtype: "interrupt";
  [k: string]: unknown;
}
export interface SetPermissionModeRequest {
  subtype: "set_permission_mode";
  [k: string]: unknown;
}
/**
 * `set_model`: `null`, `""` or `"default"` mean the default model.
 */
export interface SetModelRequest {
  subtype: "set_model";
  [k: string]: unknown;
}
export interface SetMaxThinkingTokensRequest {
  subtype: "set_max_thinking_tokens";
  [k: string]: unknown;
}
export interface McpStatusRequest {
  subtype: "mcp_status";
  [k: string]: unknown;
}
export interface GetContextUsageRequest {
  subtype: "get_context_usage";
  [k: string]: unknown;
}
export interface CancelAsyncMessageRequest {
  subtype: "cancel_async_message";
  [k: string]: unknown;
}
export interface RewindFilesRequest {
  subtype: "rewind_files";
  [k: string]: unknown;
}
export interface McpToggleRequest {
  subtype: "mcp_toggle";
  [k: string]: unknown;
}
/**
 * `{serverName}`: `mcp_reconnect`, and Qoder `mcp_clear_auth`.
 */
export interface McpReconnectRequest {
  subtype: "mcp_reconnect";
  [k: string]: unknown;
}
export interface StopTaskRequest {
  subtype: "stop_task";
  [k: string]: unknown;
}
export interface ApplyFlagSettingsRequest {
  subtype: "apply_flag_settings";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest {
  subtype: "get_settings";
  [k: string]: unknown;
}
export interface ReloadPluginsRequest {
  subtype: "reload_plugins";
  [k: string]: unknown;
}
export interface SeedReadStateRequest {
  subtype: "seed_read_state";
  [k: string]: unknown;
}
/**
 * `mcp_set_servers{servers:{name: config}}` (sdk entries as `{type:"sdk",name}`).
 */
export interface McpSetServersRequest {
  subtype: "mcp_set_servers";
  [k: string]: unknown;
}
/**
 * TS: server-initiated JSON-RPC delivered to dcl (acknowledged with `{}`).
 */
export interface McpMessageRequest {
  subtype: "mcp_message";
  [k: string]: unknown;
}
export interface UpdateSettingsRequest {
  subtype: "update_settings";
  [k: string]: unknown;
}
export interface McpReadResourceRequest {
  subtype: "mcp_read_resource";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest1 {
  subtype: "reload_skills";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest2 {
  subtype: "reload_output_styles";
  [k: string]: unknown;
}
export interface BackgroundTasksRequest {
  subtype: "background_tasks";
  [k: string]: unknown;
}
export interface GetTaskOutputRequest {
  subtype: "get_task_output";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest3 {
  subtype: "list_permission_rules";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest4 {
  subtype: "get_hooks_listing";
  [k: string]: unknown;
}
export interface GetUsageRequest {
  subtype: "get_usage";
  [k: string]: unknown;
}
export interface ReadFileRequest {
  subtype: "read_file";
  [k: string]: unknown;
}
export interface SetMcpPermissionModeOverrideRequest {
  subtype: "set_mcp_permission_mode_override";
  [k: string]: unknown;
}
export interface SetProxyRequest {
  subtype: "set_proxy";
  [k: string]: unknown;
}
export interface SetPlanModeRequest {
  subtype: "set_plan_mode";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest5 {
  subtype: "get_plan_mode";
  [k: string]: unknown;
}
export interface SetGoalRequest {
  subtype: "set_goal";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest6 {
  subtype: "get_goal";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest7 {
  subtype: "clear_goal";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest8 {
  subtype: "resume_goal";
  [k: string]: unknown;
}
export interface SetGoalMaxTurnsRequest {
  subtype: "set_goal_max_turns";
  [k: string]: unknown;
}
export interface SideQuestionRequest {
  subtype: "side_question";
  [k: string]: unknown;
}
export interface McpAuthenticateRequest {
  subtype: "mcp_authenticate";
  [k: string]: unknown;
}
export interface McpOauthCallbackUrlRequest {
  subtype: "mcp_oauth_callback_url";
  [k: string]: unknown;
}
export interface McpInjectTokenRequest {
  subtype: "mcp_inject_token";
  [k: string]: unknown;
}
/**
 * `{serverName}`: `mcp_reconnect`, and Qoder `mcp_clear_auth`.
 */
export interface McpReconnectRequest1 {
  subtype: "mcp_clear_auth";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest9 {
  subtype: "get_usage_info";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest10 {
  subtype: "account_info";
  [k: string]: unknown;
}
export interface GetModelsRequest {
  subtype: "get_models";
  [k: string]: unknown;
}
export interface AddDirectoriesRequest {
  subtype: "add_directories";
  [k: string]: unknown;
}
export interface GenerateSessionTitleRequest {
  subtype: "generate_session_title";
  [k: string]: unknown;
}
/**
 * Qoder `rewind`: conversation and/or files back to before a user message.
 */
export interface RewindRequest {
  subtype: "rewind";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest11 {
  subtype: "list_plugins";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest12 {
  subtype: "flush_memory";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest13 {
  subtype: "refresh_memory";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest14 {
  subtype: "flush_skill_evolution";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest15 {
  subtype: "end_session";
  [k: string]: unknown;
}
/**
 * `rename_session`: the session's user-facing title.
 */
export interface RenameSessionRequest {
  subtype: "rename_session";
  [k: string]: unknown;
}
/**
 * `update_queued_message`: new content for a prompt still waiting for its turn.
 */
export interface UpdateQueuedMessageRequest {
  subtype: "update_queued_message";
  [k: string]: unknown;
}
/**
 * `set_cwd`: move the session to another working directory.
 */
export interface SetCwdRequest {
  subtype: "set_cwd";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest16 {
  subtype: "get_status";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest17 {
  subtype: "export_conversation";
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 */
export interface EmptyRequest18 {
  subtype: "get_plan";
  [k: string]: unknown;
}
/**
 * `register_repo_root`: another directory the session may work in.
 */
export interface RegisterRepoRootRequest {
  subtype: "register_repo_root";
  [k: string]: unknown;
}
/**
 * `initialize`: everything the SDK options carry that is not an argv flag.
 *
 * Claude sends `hooks: null` when there are none; Qoder omits `hooks`. Both read as `None`
 * (and serialize as `null`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "InitializeRequest".
 */
export interface InitializeRequest1 {
  hooks: {
    [k: string]: unknown;
  } | null;
  sdkMcpServers?: string[] | null;
  agents?: {
    [k: string]: unknown;
  } | null;
  agent?: string | null;
  systemPrompt?: SystemPromptValue | null;
  appendSystemPrompt?: string | null;
  jsonSchema?: unknown;
  promptSuggestions?: boolean | null;
  agentProgressSummaries?: boolean | null;
  /**
   * Main-session skill allowlist (`[]` hides all).
   */
  skills?: string[] | null;
  excludeDynamicSections?: boolean | null;
  systemPromptSnapshot?: unknown;
  forwardSubagentText?: boolean | null;
  planModeInstructions?: string | null;
  title?: string | null;
  disallowedTools?: string[] | null;
  /**
   * TS: `{server: {initializeResult, toolsListResult}}`, the pre-run MCP handshake.
   */
  sdkMcpServerManifests?: {
    [k: string]: unknown;
  } | null;
  /**
   * Qoder TS: `{server: {tool: {exposedName?, alwaysLoad?}}}`.
   */
  sdkMcpToolOverrides?: {
    [k: string]: unknown;
  } | null;
  mcpServers?: {
    [k: string]: unknown;
  } | null;
  settings?: {
    [k: string]: unknown;
  } | null;
  /**
   * Policy settings that win over every other layer (TS `managedSettingsDelivery:
   * 'initialize'`).
   */
  managedSettings?: {
    [k: string]: unknown;
  } | null;
  /**
   * `[{type: "local", path, skipMcpDiscovery?}]`.
   */
  plugins?: unknown[] | null;
  /**
   * Qoder: enable file checkpoints (`rewind_files`).
   */
  enableFileCheckpointing?: boolean | null;
  /**
   * Qoder: ask the host (`get_model_policy`) before each model call.
   */
  modelPolicyProvider?: boolean | null;
  initializeTimeoutMs?: number | null;
  supportsCatalogReadyInitialize?: boolean | null;
  supportsAvailableModelsUpdate?: boolean | null;
  supportsCommandsChanged?: boolean | null;
  /**
   * Qoder memory configuration (`{requester, mode, …}`).
   */
  memory?: {
    [k: string]: unknown;
  };
  /**
   * Qoder skill-evolution configuration.
   */
  evolution?: {
    [k: string]: unknown;
  };
  permissionMode?: string | null;
  model?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "InterruptRequest".
 */
export interface InterruptRequest1 {
  cancel_queued?: boolean | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SetPermissionModeRequest".
 */
export interface SetPermissionModeRequest1 {
  mode: string;
  /**
   * Qoder TS: keep plan mode active while changing the underlying mode.
   */
  preservePlanMode?: boolean | null;
  [k: string]: unknown;
}
/**
 * `set_model`: `null`, `""` or `"default"` mean the default model.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SetModelRequest".
 */
export interface SetModelRequest1 {
  model: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SetMaxThinkingTokensRequest".
 */
export interface SetMaxThinkingTokensRequest1 {
  /**
   * `null` restores the default.
   */
  max_thinking_tokens: number | null;
  thinking_display?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpStatusRequest".
 */
export interface McpStatusRequest1 {
  /**
   * TS: ask for a fresh probe instead of the cached status.
   */
  liveReply?: boolean | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GetContextUsageRequest".
 */
export interface GetContextUsageRequest1 {
  /**
   * TS: `summary` or `full`.
   */
  detail?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "CancelAsyncMessageRequest".
 */
export interface CancelAsyncMessageRequest1 {
  message_uuid: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "RewindFilesRequest".
 */
export interface RewindFilesRequest1 {
  user_message_id: string;
  dry_run?: boolean | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpToggleRequest".
 */
export interface McpToggleRequest1 {
  serverName: string;
  enabled: boolean;
  [k: string]: unknown;
}
/**
 * `{serverName}`: `mcp_reconnect`, and Qoder `mcp_clear_auth`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpReconnectRequest".
 */
export interface McpReconnectRequest2 {
  serverName: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "StopTaskRequest".
 */
export interface StopTaskRequest1 {
  task_id: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ApplyFlagSettingsRequest".
 */
export interface ApplyFlagSettingsRequest1 {
  settings: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * A request with no fields dcl reads (unknown extras are kept).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "EmptyRequest".
 */
export interface EmptyRequest19 {
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ReloadPluginsRequest".
 */
export interface ReloadPluginsRequest1 {
  hold_on_cache_impact?: boolean | null;
  add_plugins?: unknown;
  refuse_if_busy?: boolean | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SeedReadStateRequest".
 */
export interface SeedReadStateRequest1 {
  path: string;
  mtime: number;
  [k: string]: unknown;
}
/**
 * `mcp_set_servers{servers:{name: config}}` (sdk entries as `{type:"sdk",name}`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpSetServersRequest".
 */
export interface McpSetServersRequest1 {
  servers: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpMessageRequest".
 */
export interface McpMessageRequest1 {
  server_name: string;
  message: unknown;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "UpdateSettingsRequest".
 */
export interface UpdateSettingsRequest1 {
  source: string;
  settings: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpReadResourceRequest".
 */
export interface McpReadResourceRequest1 {
  serverName: string;
  uri: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "BackgroundTasksRequest".
 */
export interface BackgroundTasksRequest1 {
  /**
   * Targets one task; absent backgrounds all.
   */
  tool_use_id?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GetTaskOutputRequest".
 */
export interface GetTaskOutputRequest1 {
  task_id: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GetUsageRequest".
 */
export interface GetUsageRequest1 {
  skip_behaviors?: unknown;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ReadFileRequest".
 */
export interface ReadFileRequest1 {
  path: string;
  max_bytes?: number | null;
  encoding?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SetMcpPermissionModeOverrideRequest".
 */
export interface SetMcpPermissionModeOverrideRequest1 {
  serverName: string;
  mode: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SetProxyRequest".
 */
export interface SetProxyRequest1 {
  /**
   * `null` clears the proxy.
   */
  proxy: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SetPlanModeRequest".
 */
export interface SetPlanModeRequest1 {
  active: boolean;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SetGoalRequest".
 */
export interface SetGoalRequest1 {
  objective?: string | null;
  status?: string | null;
  credits_budget?: number | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SetGoalMaxTurnsRequest".
 */
export interface SetGoalMaxTurnsRequest1 {
  max_turns: number | null;
  [k: string]: unknown;
}
/**
 * One earlier exchange given as context to a side question.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SideQuestionTurn".
 */
export interface SideQuestionTurn {
  question: string;
  response: string | null;
  fallback_notice?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SideQuestionRequest".
 */
export interface SideQuestionRequest1 {
  question: string;
  history?: SideQuestionTurn[] | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpAuthenticateRequest".
 */
export interface McpAuthenticateRequest1 {
  serverName: string;
  redirectUri?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpOauthCallbackUrlRequest".
 */
export interface McpOauthCallbackUrlRequest1 {
  serverName: string;
  callbackUrl: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpInjectTokenRequest".
 */
export interface McpInjectTokenRequest1 {
  serverName: string;
  /**
   * `{accessToken, …}`.
   */
  token: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GetModelsRequest".
 */
export interface GetModelsRequest1 {
  /**
   * `cache` or `live`.
   */
  fetchStrategy?: string | null;
  uid?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "AddDirectoriesRequest".
 */
export interface AddDirectoriesRequest1 {
  directories: string[];
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GenerateSessionTitleRequest".
 */
export interface GenerateSessionTitleRequest1 {
  description: string;
  persist?: boolean | null;
  [k: string]: unknown;
}
/**
 * Qoder `rewind`: conversation and/or files back to before a user message.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "RewindRequest".
 */
export interface RewindRequest1 {
  user_message_id: string;
  /**
   * `conversation`, `files` or `both`.
   */
  scope: string;
  dry_run?: boolean | null;
  [k: string]: unknown;
}
/**
 * `rename_session`: the session's user-facing title.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "RenameSessionRequest".
 */
export interface RenameSessionRequest1 {
  title: string;
  /**
   * `remote` (the default) or `host`.
   */
  source?: string | null;
  /**
   * When given, the title is refused unless this is still the session's id.
   */
  session_id?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "TextBlock".
 */
export interface TextBlock1 {
  text: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ThinkingBlock".
 */
export interface ThinkingBlock1 {
  thinking: string;
  signature: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "RedactedThinkingBlock".
 */
export interface RedactedThinkingBlock1 {
  data: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ToolUseBlock".
 */
export interface ToolUseBlock1 {
  id: string;
  name: string;
  input: unknown;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ToolResultBlock".
 */
export interface ToolResultBlock1 {
  tool_use_id: string;
  content?: ToolResultContent | null;
  is_error?: boolean | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ImageBlock".
 */
export interface ImageBlock1 {
  source: unknown;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "DocumentBlock".
 */
export interface DocumentBlock1 {
  source: unknown;
  [k: string]: unknown;
}
/**
 * `update_queued_message`: new content for a prompt still waiting for its turn.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "UpdateQueuedMessageRequest".
 */
export interface UpdateQueuedMessageRequest1 {
  message_uuid: string;
  /**
   * The prompt's new content (a string or content blocks).
   */
  content?: MessageContent | null;
  [k: string]: unknown;
}
/**
 * `set_cwd`: move the session to another working directory.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SetCwdRequest".
 */
export interface SetCwdRequest1 {
  path: string;
  trust_accepted?: boolean | null;
  trusted_directory?: string | null;
  [k: string]: unknown;
}
/**
 * `register_repo_root`: another directory the session may work in.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "RegisterRepoRootRequest".
 */
export interface RegisterRepoRootRequest1 {
  directory: string;
  reload_claude_md?: boolean | null;
  reload_plugins?: boolean | null;
  reload_skills?: boolean | null;
  [k: string]: unknown;
}
/**
 * One subagent definition from `initialize.agents`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "AgentDefinition".
 */
export interface AgentDefinition {
  description: string;
  prompt: string;
  tools?: string[] | null;
  disallowedTools?: string[] | null;
  /**
   * `sonnet|opus|haiku|inherit` or a model id.
   */
  model?: string | null;
  skills?: string[] | null;
  memory?: string | null;
  /**
   * Server names or `{name: config}`.
   */
  mcpServers?: {
    [k: string]: unknown;
  };
  initialPrompt?: string | null;
  maxTurns?: number | null;
  background?: boolean | null;
  effort?: unknown;
  permissionMode?: string | null;
  isolation?: string | null;
  [k: string]: unknown;
}
/**
 * `can_use_tool`: ask the host to approve a tool call.
 *
 * Qoder/TS extras (`title`, `decision_reason`, `agent_id`, `classifier_approvable`,
 * `details`, `permission_kind`, `options`, …) go in `extra`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "CanUseToolRequest".
 */
export interface CanUseToolRequest {
  subtype: CanUseToolTag;
  tool_name: string;
  display_name: string;
  input: unknown;
  tool_use_id: string;
  description?: string | null;
  /**
   * Omitted from the line when empty, as the reference does.
   */
  permission_suggestions?: unknown[];
  blocked_path?: string | null;
  decision_reason_type?: string | null;
  [k: string]: unknown;
}
/**
 * `hook_callback`: run a host-registered hook.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "HookCallbackRequest".
 */
export interface HookCallbackRequest {
  subtype: HookCallbackTag;
  callback_id: string;
  input: unknown;
  tool_use_id: string | null;
  [k: string]: unknown;
}
/**
 * `mcp_message` (dcl -> host): JSON-RPC for a host-provided MCP server.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpMessageOut".
 */
export interface McpMessageOut {
  subtype: McpMessageTag;
  server_name: string;
  message: unknown;
  [k: string]: unknown;
}
/**
 * `elicitation`: an MCP server asks the user for input.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ElicitationRequest".
 */
export interface ElicitationRequest {
  subtype: ElicitationTag;
  mcp_server_name: string;
  message: string;
  /**
   * `form` or `url`.
   */
  mode?: string | null;
  url?: string | null;
  elicitation_id?: string | null;
  requested_schema?: unknown;
  title?: string | null;
  display_name?: string | null;
  description?: string | null;
  [k: string]: unknown;
}
/**
 * Qoder `mcp_oauth_required`: an MCP server needs OAuth the host performs.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpOauthRequiredRequest".
 */
export interface McpOauthRequiredRequest {
  subtype: McpOauthRequiredTag;
  server_name: string;
  auth_url: string;
  state?: string | null;
  scopes?: string[] | null;
  redirect_uri?: string | null;
  [k: string]: unknown;
}
/**
 * Qoder `get_model_policy` (only when `initialize.modelPolicyProvider` is true).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GetModelPolicyRequest".
 */
export interface GetModelPolicyRequest {
  subtype: GetModelPolicyTag;
  /**
   * `main`, `plan`, `task`, `compact`, `title`, `suggestion`, `subagent`, …
   */
  purpose: string;
  sessionId: string;
  turnIndex: number;
  agentId?: string | null;
  agentType?: string | null;
  resolvedModel?: string | null;
  contextUsage?: unknown;
  estimatedInputTokens?: number | null;
  estimatedOutputTokens?: number | null;
  /**
   * `{attempt, lastError, lastModelId}`.
   */
  retry?: {
    [k: string]: unknown;
  };
  models?: unknown[] | null;
  [k: string]: unknown;
}
/**
 * Qoder `fetch_service_account_token` (auth payload `serviceAccountTokenProvider: "host"`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "FetchServiceAccountTokenRequest".
 */
export interface FetchServiceAccountTokenRequest {
  subtype: FetchServiceAccountTokenTag;
  /**
   * `initial`, `expiring` or `unauthorized`.
   */
  reason?: string | null;
  required_scopes: string[];
  session_id?: string | null;
  [k: string]: unknown;
}
/**
 * Qoder `fetch_job_token` (auth payload `jobTokenProvider: "host"`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "FetchJobTokenRequest".
 */
export interface FetchJobTokenRequest {
  subtype: FetchJobTokenTag;
  reason?: string | null;
  session_id?: string | null;
  [k: string]: unknown;
}
/**
 * Qoder `memory_should_generate`: ask the host whether to run memory generation.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "MemoryShouldGenerateRequest".
 */
export interface MemoryShouldGenerateRequest {
  subtype: MemoryShouldGenerateTag;
  callbackId: string;
  input: unknown;
  [k: string]: unknown;
}
/**
 * Qoder `skill_evolution_should_review`: ask the host whether to review skills.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SkillEvolutionShouldReviewRequest".
 */
export interface SkillEvolutionShouldReviewRequest {
  subtype: SkillEvolutionShouldReviewTag;
  callbackId: string;
  input: unknown;
  [k: string]: unknown;
}
/**
 * Qoder TS `resolve_session_artifacts`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ResolveSessionArtifactsRequest".
 */
export interface ResolveSessionArtifactsRequest {
  subtype: ResolveSessionArtifactsTag;
  local_session_id: string;
  cwd: string;
  [k: string]: unknown;
}
export interface PermissionRulesUpdate {
  type: "addRules";
  [k: string]: unknown;
}
export interface PermissionRulesUpdate1 {
  type: "replaceRules";
  [k: string]: unknown;
}
export interface PermissionRulesUpdate2 {
  type: "removeRules";
  [k: string]: unknown;
}
export interface PermissionDirectoriesUpdate {
  type: "addDirectories";
  [k: string]: unknown;
}
export interface PermissionDirectoriesUpdate1 {
  type: "removeDirectories";
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PermissionRuleValue".
 */
export interface PermissionRuleValue {
  toolName: string;
  ruleContent?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PermissionRulesUpdate".
 */
export interface PermissionRulesUpdate3 {
  rules: PermissionRuleValue[];
  /**
   * `allow`, `deny` or `ask`.
   */
  behavior: string;
  /**
   * `userSettings`, `projectSettings`, `localSettings`, `session` or `cliArg`.
   */
  destination?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PermissionDirectoriesUpdate".
 */
export interface PermissionDirectoriesUpdate2 {
  directories: string[];
  destination?: string | null;
  [k: string]: unknown;
}
/**
 * What a hook returns (all fields optional).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "HookOutput".
 */
export interface HookOutput {
  continue?: boolean | null;
  stopReason?: string | null;
  suppressOutput?: boolean | null;
  decision?: string | null;
  reason?: string | null;
  systemMessage?: string | null;
  hookSpecificOutput?: {
    [k: string]: unknown;
  } | null;
  /**
   * `{"async": true, "asyncTimeout": ms}`: the hook finishes later.
   */
  async?: boolean | null;
  asyncTimeout?: number | null;
  [k: string]: unknown;
}
/**
 * The host's answer to `mcp_message`: `{"mcp_response": <JSON-RPC response>}`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpMessageResponse".
 */
export interface McpMessageResponse {
  mcp_response: unknown;
  [k: string]: unknown;
}
/**
 * The host's answer to `elicitation`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ElicitationResponse".
 */
export interface ElicitationResponse {
  action: ElicitationAction;
  content?: {
    [k: string]: unknown;
  } | null;
  _meta?: unknown;
  [k: string]: unknown;
}
/**
 * The host's answer to `mcp_oauth_required`: a token, a callback URL, or a code.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpOauthRequiredResponse".
 */
export interface McpOauthRequiredResponse {
  /**
   * `{accessToken, …}`.
   */
  token?: {
    [k: string]: unknown;
  } | null;
  callbackUrl?: string | null;
  code?: string | null;
  state?: string | null;
  [k: string]: unknown;
}
/**
 * The host's answer to `get_model_policy`; no `model` keeps dcl's choice.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ModelPolicyResponse".
 */
export interface ModelPolicyResponse {
  type?: string | null;
  model?: string | null;
  parameters?: unknown;
  /**
   * `{provider, api_key, model?, url?, style, isVl?}`.
   */
  custom_model?: {
    [k: string]: unknown;
  };
  task_id?: string | null;
  sub_task?: unknown;
  [k: string]: unknown;
}
/**
 * The host's answer to `fetch_service_account_token` / `fetch_job_token`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "TokenResponse".
 */
export interface TokenResponse {
  token: string;
  /**
   * Milliseconds since the epoch.
   */
  expires_at?: number | null;
  [k: string]: unknown;
}
/**
 * The host's answer to `memory_should_generate` / `skill_evolution_should_review`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ShouldRunResponse".
 */
export interface ShouldRunResponse {
  run: boolean;
  reason?: string | null;
  [k: string]: unknown;
}
/**
 * `{}`: the answer to requests that return nothing (`mcp_toggle`, `mcp_reconnect`,
 * `stop_task`, `seed_read_state`, …).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "EmptyResponse".
 */
export interface EmptyResponse {
  [k: string]: unknown;
}
/**
 * The `initialize` answer.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "InitializeResponse".
 */
export interface InitializeResponse {
  commands: SlashCommandInfo[];
  agents: AgentInfo[];
  output_style: string;
  available_output_styles: string[];
  models: ModelInfo[];
  account: AccountInfo;
  pid?: number | null;
  /**
   * dcl always sends `true` (the Python SDK requires it for `onFailure: "block"` hooks).
   */
  hook_on_failure_supported?: boolean | null;
  claude_code_version?: string | null;
  /**
   * dcl's own version.
   */
  dcl_version?: string | null;
  current_permission_mode?: PermissionModeName | null;
  /**
   * Qoder: identical to `system/init.capabilities`.
   */
  capabilities?: string[] | null;
  /**
   * What was accepted but not acted on (options, flags); absent when nothing was.
   */
  warnings?: string[] | null;
  /**
   * Whether the `hooks` of the request were registered (present when it had hooks).
   */
  hooks_applied?: boolean | null;
  /**
   * Whether the request's `settings` are in force (present when it carried them).
   */
  settings_applied?: boolean | null;
  /**
   * Whether the request's `disallowedTools` are in force.
   */
  disallowed_tools_applied?: boolean | null;
  /**
   * Whether the request's `managedSettings` are in force.
   */
  managed_settings_applied?: boolean | null;
  /**
   * Whether the request's external `mcpServers` were loaded (the newest TS SDK ends the
   * session when this key is missing).
   */
  mcp_servers_applied?: boolean | null;
  /**
   * Whether the request's `plugins` were loaded.
   */
  plugins_applied?: boolean | null;
  [k: string]: unknown;
}
/**
 * A slash command as listed in `initialize.commands` and `reload_plugins.commands`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SlashCommandInfo".
 */
export interface SlashCommandInfo {
  name: string;
  description: string;
  argumentHint: string;
  builtin?: boolean | null;
  aliases?: string[] | null;
  [k: string]: unknown;
}
/**
 * A subagent as listed in `initialize.agents`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "AgentInfo".
 */
export interface AgentInfo {
  name: string;
  description: string;
  model?: string | null;
  [k: string]: unknown;
}
/**
 * A model as listed in `initialize.models` (and Qoder `get_models`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ModelInfo".
 */
export interface ModelInfo {
  value: string;
  resolvedModel?: string | null;
  displayName: string;
  description: string;
  supportsEffort?: boolean | null;
  supportedEffortLevels?: EffortLevel[] | null;
  /**
   * Claude: whether the model decides by itself when and how much to think.
   */
  supportsAdaptiveThinking?: boolean | null;
  supportsFastMode?: boolean | null;
  /**
   * Qoder.
   */
  isEnabled?: boolean | null;
  /**
   * Qoder: context-window tiers by label (`200K`, `1M`).
   */
  context_config?: {
    [k: string]: ModelContextWindow;
  } | null;
  /**
   * Qoder: how thinking can be set for this model.
   */
  thinking_config?: ModelThinkingConfig | null;
  [k: string]: unknown;
}
/**
 * One context-window tier of a Qoder catalogue entry.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ModelContextWindow".
 */
export interface ModelContextWindow {
  token_count: number;
  is_default?: boolean | null;
  [k: string]: unknown;
}
/**
 * Qoder `thinking_config`: what "off" and "on" mean for a model.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ModelThinkingConfig".
 */
export interface ModelThinkingConfig {
  disabled?: ModelThinkingDisabled | null;
  enabled?: ModelThinkingEnabled | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ModelThinkingDisabled".
 */
export interface ModelThinkingDisabled {
  description?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ModelThinkingEnabled".
 */
export interface ModelThinkingEnabled {
  description?: string | null;
  /**
   * By effort level (`low`, `medium`, `high`, `max`).
   */
  efforts?: {
    [k: string]: ModelEffort;
  } | null;
  is_default?: boolean | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ModelEffort".
 */
export interface ModelEffort {
  description?: string | null;
  is_default?: boolean | null;
  [k: string]: unknown;
}
/**
 * `initialize.account`. Every field is optional (`{}` is a valid answer).
 */
export interface AccountInfo {
  tokenSource?: string | null;
  apiKeySource?: string | null;
  apiProvider?: string | null;
  [k: string]: unknown;
}
/**
 * `initialize.account`. Every field is optional (`{}` is a valid answer).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "AccountInfo".
 */
export interface AccountInfo1 {
  tokenSource?: string | null;
  apiKeySource?: string | null;
  apiProvider?: string | null;
  [k: string]: unknown;
}
/**
 * The `interrupt` answer: uuids of queued messages that were not cancelled (Qoder also lists
 * `cancelled`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "InterruptResponse".
 */
export interface InterruptResponse {
  still_queued: string[];
  cancelled?: string[] | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SetPermissionModeResponse".
 */
export interface SetPermissionModeResponse {
  mode: PermissionModeName;
  [k: string]: unknown;
}
/**
 * The `set_model` answer: the resolved model.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SetModelResponse".
 */
export interface SetModelResponse {
  model: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "CancelAsyncMessageResponse".
 */
export interface CancelAsyncMessageResponse {
  cancelled: boolean;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GetSettingsResponse".
 */
export interface GetSettingsResponse {
  effective: {
    [k: string]: unknown;
  };
  sources: SettingsSource[];
  applied: AppliedSettings;
  [k: string]: unknown;
}
/**
 * One settings layer in `get_settings.sources` (`user` → `project` → `local` → `flag`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SettingsSource".
 */
export interface SettingsSource {
  source: string;
  /**
   * The file the layer was read from (absent for `flag`).
   */
  path?: string | null;
  settings: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * What actually took effect (`get_settings.applied`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "AppliedSettings".
 */
export interface AppliedSettings {
  model: string | null;
  effort: string | null;
  [k: string]: unknown;
}
/**
 * The `apply_flag_settings` answer (Qoder: `{applied: {effort, …}}`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ApplyFlagSettingsResponse".
 */
export interface ApplyFlagSettingsResponse {
  applied?: {
    [k: string]: unknown;
  } | null;
  [k: string]: unknown;
}
/**
 * The `mcp_status` answer. Claude reads `mcpServers`, Qoder TS reads `servers`; dcl fills
 * both ([`McpStatusResponse::new`]). Each is optional so either shape round-trips.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpStatusResponse".
 */
export interface McpStatusResponse {
  mcpServers?: McpServerStatus[] | null;
  servers?: McpServerStatus[] | null;
  [k: string]: unknown;
}
/**
 * One MCP server in `mcp_status` / `reload_plugins` (fields in the order dcl's MCP manager
 * writes them).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpServerStatus".
 */
export interface McpServerStatus {
  name: string;
  /**
   * `connected`, `failed`, `needs-auth`, `pending` or `disabled`.
   */
  status: "connected" | "failed" | "needs-auth" | "pending" | "disabled";
  error?: string | null;
  /**
   * `{name, version}` from the server's `initialize` result.
   */
  serverInfo?: {
    [k: string]: unknown;
  };
  tools?: McpToolInfo[] | null;
  config?: unknown;
  scope?: string | null;
  [k: string]: unknown;
}
/**
 * A tool of an MCP server in `mcp_status`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpToolInfo".
 */
export interface McpToolInfo {
  name: string;
  description?: string | null;
  annotations?: unknown;
  [k: string]: unknown;
}
/**
 * The `mcp_set_servers` answer.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpSetServersResponse".
 */
export interface McpSetServersResponse {
  added: string[];
  removed: string[];
  errors: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * Qoder `mcp_authenticate` answer.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "McpAuthenticateResponse".
 */
export interface McpAuthenticateResponse {
  authUrl?: string | null;
  requiresUserAction: boolean;
  [k: string]: unknown;
}
/**
 * The `get_context_usage` answer (Claude shape; Qoder's extra keys such as
 * `contextWindow`, `autoCompact`, `session` go in `extra`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ContextUsageResponse".
 */
export interface ContextUsageResponse {
  categories: ContextCategory[];
  totalTokens: number;
  maxTokens: number;
  rawMaxTokens: number;
  /**
   * 0–100.
   */
  percentage: number;
  model: string;
  isAutoCompactEnabled: boolean;
  autoCompactThreshold?: number | null;
  autocompactSource?: string | null;
  memoryFiles?: unknown[] | null;
  mcpTools?: unknown[] | null;
  agents?: unknown[] | null;
  gridRows?: unknown[][] | null;
  /**
   * Qoder: `{usedPercentage, usedTokens, maxTokens}`.
   */
  contextWindow?: {
    [k: string]: unknown;
  };
  /**
   * Qoder: `{enabled, thresholdPercentage}`.
   */
  autoCompact?: {
    [k: string]: unknown;
  };
  slashCommands?: unknown;
  skills?: unknown;
  messageBreakdown?: unknown;
  /**
   * Usage of the last request; an explicit `null` before the first one.
   */
  apiUsage?: {
    [k: string]: unknown;
  };
  duplicateFileReads?: unknown[] | null;
  /**
   * Qoder: `{messageCount, promptCount, toolCalls, linesChanged}`.
   */
  session?: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * One category of `get_context_usage` (`System prompt`, `System tools`, `Messages`, …).
 * Claude reads `name`/`tokens`/`color`; Qoder reads `type`/`percentage`; dcl writes both.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ContextCategory".
 */
export interface ContextCategory {
  name: string;
  id?: string | null;
  /**
   * Qoder's category type (`system_prompt`, `messages`, `free_space`, `other`, …).
   */
  type?: string | null;
  /**
   * `used` or `free`.
   */
  kind?: string | null;
  tokens: number;
  /**
   * Of the context window, 0–100.
   */
  percentage?: number | null;
  color: string;
  [k: string]: unknown;
}
/**
 * The `rewind_files` answer.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "RewindFilesResponse".
 */
export interface RewindFilesResponse {
  canRewind: boolean;
  error?: string | null;
  filesChanged?: string[] | null;
  insertions?: number | null;
  deletions?: number | null;
  [k: string]: unknown;
}
/**
 * The Qoder `rewind` answer.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "RewindResponse".
 */
export interface RewindResponse {
  /**
   * `ready`, `success`, `partial` or `rejected`.
   */
  status: string;
  targetUserMessageId: string;
  scope: string;
  retainedLeafId?: string | null;
  removedMessageIds?: string[] | null;
  filesChanged?: string[] | null;
  insertions?: number | null;
  deletions?: number | null;
  failedFiles?: FailedPath[] | null;
  error?: string | null;
  [k: string]: unknown;
}
/**
 * A file that could not be restored by Qoder `rewind`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "FailedPath".
 */
export interface FailedPath {
  path: string;
  error: string;
  [k: string]: unknown;
}
/**
 * The `reload_plugins` answer.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ReloadPluginsResponse".
 */
export interface ReloadPluginsResponse {
  commands: SlashCommandInfo[];
  agents: AgentInfo[];
  plugins: PluginInfo[];
  mcpServers: McpServerStatus[];
  error_count: number;
  [k: string]: unknown;
}
/**
 * A plugin in `reload_plugins`, Qoder `list_plugins` and `system/init.plugins`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PluginInfo".
 */
export interface PluginInfo {
  name: string;
  path: string;
  source?: string | null;
  [k: string]: unknown;
}
/**
 * The Qoder `list_plugins` answer.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ListPluginsResponse".
 */
export interface ListPluginsResponse {
  plugins: unknown[];
  [k: string]: unknown;
}
/**
 * The Qoder TS `reload_skills` answer.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ReloadSkillsResponse".
 */
export interface ReloadSkillsResponse {
  skills: unknown[];
  [k: string]: unknown;
}
/**
 * The answer to `set_plan_mode` / `get_plan_mode`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PlanModeResponse".
 */
export interface PlanModeResponse {
  plan_mode: PlanModeState;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PlanModeState".
 */
export interface PlanModeState {
  active: boolean;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SetProxyResponse".
 */
export interface SetProxyResponse {
  proxy: string | null;
  [k: string]: unknown;
}
/**
 * The answer to `set_goal` / `get_goal`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GoalResponse".
 */
export interface GoalResponse {
  goal: GoalSnapshot | null;
  [k: string]: unknown;
}
/**
 * A goal as Qoder reports it.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GoalSnapshot".
 */
export interface GoalSnapshot {
  id: string;
  objective: string;
  status: string;
  turns_used: number;
  time_used_seconds: number;
  created_at: unknown;
  updated_at: unknown;
  max_turns?: number | null;
  credits_budget?: number | null;
  credits_used?: number | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ClearGoalResponse".
 */
export interface ClearGoalResponse {
  cleared: boolean;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GoalMaxTurnsResponse".
 */
export interface GoalMaxTurnsResponse {
  goal_max_turns: number | null;
  [k: string]: unknown;
}
/**
 * The `background_tasks` answer (`backgrounded` only when a task was targeted).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "BackgroundTasksResponse".
 */
export interface BackgroundTasksResponse {
  backgrounded?: boolean | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SideQuestionResponse".
 */
export interface SideQuestionResponse {
  response: string | null;
  synthetic: boolean;
  /**
   * `{original_model, fallback_model, content}`.
   */
  refusal_fallback?: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GetUsageInfoResponse".
 */
export interface GetUsageInfoResponse {
  usage: unknown;
  /**
   * `{total_credits, model_usage: {model: {credits}}}`.
   */
  session: {
    [k: string]: unknown;
  };
  usage_error?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "AccountInfoResponse".
 */
export interface AccountInfoResponse {
  account: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GetModelsResponse".
 */
export interface GetModelsResponse {
  models: ModelInfo[];
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "AddDirectoriesResponse".
 */
export interface AddDirectoriesResponse {
  added: string[];
  failed: FailedPath[];
  directories: string[];
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GenerateSessionTitleResponse".
 */
export interface GenerateSessionTitleResponse {
  title: string | null;
  [k: string]: unknown;
}
/**
 * `update_queued_message`: `updated`, or `not_queued` when no waiting prompt has that
 * uuid (it already started, was cancelled, or never was).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "UpdateQueuedMessageResponse".
 */
export interface UpdateQueuedMessageResponse {
  outcome: string;
  [k: string]: unknown;
}
/**
 * `list_permission_rules`: the session's live rules and workspace directories.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "ListPermissionRulesResponse".
 */
export interface ListPermissionRulesResponse {
  state: PermissionRulesState;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PermissionRulesState".
 */
export interface PermissionRulesState {
  rules: PermissionRuleEntry[];
  workspaceDirectories: WorkspaceDirectory[];
  originalCwd: string;
  managedOnly: boolean;
  [k: string]: unknown;
}
/**
 * One rule with where it comes from (`userSettings`, `projectSettings`, `localSettings`,
 * `flagSettings`, `cliArg`, `session`) and whether a host may change it there
 * (`persistent`, `session`, `readonly`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "PermissionRuleEntry".
 */
export interface PermissionRuleEntry {
  /**
   * `allow`, `deny` or `ask`.
   */
  behavior: string;
  source: string;
  rule: string;
  editability: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "WorkspaceDirectory".
 */
export interface WorkspaceDirectory {
  path: string;
  source: string;
  [k: string]: unknown;
}
/**
 * `get_hooks_listing`: the hooks a session runs, grouped by event, as the reference's
 * /hooks menu lists them.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "GetHooksListingResponse".
 */
export interface GetHooksListingResponse {
  /**
   * Events with at least one hook, in the SDK's order.
   */
  events: HookListingEvent[];
  hooks: HookListingRow[];
  /**
   * Every event the SDK names, in its order.
   */
  eventCatalog: HookListingCatalogEntry[];
  policy: HookListingPolicy;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "HookListingEvent".
 */
export interface HookListingEvent {
  name: string;
  summary: string;
  supportsMatcher: boolean;
  hookCount: number;
  [k: string]: unknown;
}
/**
 * One hook: a settings file's or a plugin's command, or a host callback.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "HookListingRow".
 */
export interface HookListingRow {
  event: string;
  /**
   * `""` when the entry has none.
   */
  matcher: string;
  /**
   * `userSettings`, `projectSettings`, `localSettings`, `flagSettings`, `pluginHook`,
   * `sessionHook` (a host callback).
   */
  source: string;
  sourceLabel: string;
  /**
   * `command` or `callback`.
   */
  type: string;
  displayText: string;
  commandText: string;
  contentLabel: string;
  /**
   * Seconds.
   */
  timeout?: number | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "HookListingCatalogEntry".
 */
export interface HookListingCatalogEntry {
  name: string;
  summary: string;
  supportsMatcher: boolean;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "HookListingPolicy".
 */
export interface HookListingPolicy {
  disabledByPolicy: boolean;
  managedOnly: boolean;
  pluginOnly: boolean;
  allDisabled: boolean;
  policyHookCount: number;
  [k: string]: unknown;
}
/**
 * `system/init`: at the start of every turn (Qoder: also before the `initialize` answer).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemInit".
 */
export interface SystemInit1 {
  cwd: string;
  session_id: string;
  tools: string[];
  mcp_servers: InitMcpServer[];
  model: string;
  permissionMode: PermissionModeName;
  slash_commands: string[];
  apiKeySource: string;
  /**
   * The protocol level (SDK version gates read it). Absent on real Qoder lines.
   */
  claude_code_version?: string | null;
  dcl_version?: string | null;
  output_style: string;
  agents: string[];
  skills: string[];
  plugins: PluginInfo[];
  uuid: string;
  /**
   * Qoder.
   */
  qodercli_version?: string | null;
  /**
   * Qoder (`1.4.0`; TS checks the major).
   */
  protocol_version?: string | null;
  /**
   * Qoder: identical in every init and in the `initialize` answer.
   */
  capabilities?: string[] | null;
  [k: string]: unknown;
}
/**
 * An MCP server in `system/init.mcp_servers`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "InitMcpServer".
 */
export interface InitMcpServer {
  name: string;
  /**
   * `connected`, `failed`, `needs-auth`, `pending` or `disabled`.
   */
  status: "connected" | "failed" | "needs-auth" | "pending" | "disabled";
  [k: string]: unknown;
}
/**
 * `system/status`: `status` is `requesting`, `compacting` or `null`; `permissionMode` after a
 * mode change.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemStatus".
 */
export interface SystemStatus1 {
  status: StatusKind | null;
  permissionMode?: PermissionModeName | null;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `system/api_retry`: one retry of a failed model request.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemApiRetry".
 */
export interface SystemApiRetry1 {
  attempt: number;
  max_retries: number;
  retry_delay_ms: number;
  /**
   * HTTP status; `null` for a connection error.
   */
  error_status: number | null;
  error: string;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `system/thinking_tokens`: estimated thinking so far (with partial messages).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemThinkingTokens".
 */
export interface SystemThinkingTokens1 {
  estimated_tokens: number;
  estimated_tokens_delta: number;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `system/permission_denied`: a tool call was refused without asking.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemPermissionDenied".
 */
export interface SystemPermissionDenied1 {
  tool_name: string;
  tool_use_id: string;
  message: string;
  agent_id?: string | null;
  decision_reason_type?: string | null;
  decision_reason?: unknown;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `system/informational`, e.g. a hook's `systemMessage` (`"PreToolUse:Bash says: …"`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemInformational".
 */
export interface SystemInformational1 {
  content: string;
  /**
   * `notice`, `warning`, …
   */
  level?: InformationalLevel | null;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `system/hook_started` (with `--include-hook-events`): a command hook began.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemHookStarted".
 */
export interface SystemHookStarted1 {
  hook_id: string;
  /**
   * `Event:subject` (`PreToolUse:Bash`, `SessionStart:startup`) or the event alone.
   */
  hook_name: string;
  hook_event: HookEventName;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `system/hook_progress` (with `--include-hook-events`): a running hook's output so far.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemHookProgress".
 */
export interface SystemHookProgress1 {
  hook_id: string;
  hook_name: string;
  hook_event: HookEventName;
  stdout: string;
  stderr: string;
  /**
   * Both streams, stdout first.
   */
  output: string;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `system/hook_response` (with `--include-hook-events`): a hook ended.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemHookResponse".
 */
export interface SystemHookResponse1 {
  hook_id: string;
  hook_name: string;
  hook_event: HookEventName;
  output: string;
  stdout: string;
  stderr: string;
  /**
   * Absent when the hook was killed (timeout, cancel) or never started.
   */
  exit_code?: number | null;
  outcome: HookOutcome;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `system/compact_boundary`: the conversation was compacted here.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemCompactBoundary".
 */
export interface SystemCompactBoundary1 {
  compact_metadata: CompactMetadata;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `compact_boundary.compact_metadata`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "CompactMetadata".
 */
export interface CompactMetadata {
  /**
   * `manual` or `auto`.
   */
  trigger: "manual" | "auto";
  pre_tokens: number;
  preserved_segment?: unknown;
  [k: string]: unknown;
}
/**
 * `system/task_started`: a subagent or background task began.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemTaskStarted".
 */
export interface SystemTaskStarted1 {
  task_id: string;
  description: string;
  tool_use_id?: string | null;
  /**
   * `local_agent`, `local_workflow`, `local_bash`, …
   */
  task_type?: string | null;
  subagent_type?: string | null;
  workflow_name?: string | null;
  prompt?: string | null;
  tools?: string[] | null;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `system/task_progress`. Claude requires `usage`; Qoder makes it optional.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemTaskProgress".
 */
export interface SystemTaskProgress1 {
  task_id: string;
  description: string;
  tool_use_id?: string | null;
  usage?: TaskUsage | null;
  last_tool_name?: string | null;
  subagent_type?: string | null;
  summary?: string | null;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * Usage of a background task (`task_progress`, `task_notification`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "TaskUsage".
 */
export interface TaskUsage {
  total_tokens?: number | null;
  /**
   * Absent when not counted (dcl's `task_notification`).
   */
  tool_uses?: number | null;
  duration_ms: number;
  [k: string]: unknown;
}
/**
 * `system/task_notification`: a task ended (`completed`, `failed` or `stopped`).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemTaskNotification".
 */
export interface SystemTaskNotification1 {
  task_id: string;
  tool_use_id?: string | null;
  status: TaskEndStatus;
  output_file: string;
  summary: string;
  usage?: TaskUsage | null;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `system/task_updated`: `patch{status?, description?, end_time?, error?, …}`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemTaskUpdated".
 */
export interface SystemTaskUpdated1 {
  task_id: string;
  patch: {
    [k: string]: unknown;
  };
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `system/session_state_changed`: `idle`, `running` or `requires_action`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemSessionStateChanged".
 */
export interface SystemSessionStateChanged1 {
  state: SessionState;
  sdk_host_only?: boolean | null;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * `system/background_tasks_changed`: the full list (replace semantics).
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemBackgroundTasksChanged".
 */
export interface SystemBackgroundTasksChanged1 {
  tasks: BackgroundTaskInfo[];
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
/**
 * One running background task in `background_tasks_changed`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "BackgroundTaskInfo".
 */
export interface BackgroundTaskInfo {
  task_id: string;
  task_type: string;
  description: string;
  [k: string]: unknown;
}
/**
 * Qoder `system/plan_mode_changed`.
 *
 * This interface was referenced by `DclProtocol`'s JSON-Schema
 * via the `definition` "SystemPlanModeChanged".
 */
export interface SystemPlanModeChanged1 {
  plan_mode: PlanModeState;
  session_id: string;
  uuid: string;
  [k: string]: unknown;
}
