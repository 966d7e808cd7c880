/**
 * The typed messages a query yields and the callback types, under
 * @anthropic-ai/claude-agent-sdk's names. The message shapes themselves are generated
 * from the protocol's JSON Schema (src/generated/protocol.ts).
 */
import type * as P from "./generated/protocol";

export type * as Protocol from "./generated/protocol";

type Tagged<T, K extends string> = T & { type: K };

export type SDKUserMessage = Tagged<P.UserMessage, "user"> & {
  message: { role: "user"; content: string | unknown[] };
  parent_tool_use_id: string | null;
  session_id?: string;
  uuid?: string;
  isReplay?: boolean;
};
export type SDKAssistantMessage = Tagged<P.AssistantMessage, "assistant">;
export type SDKSystemMessage = Tagged<P.SystemMessage, "system">;
export type SDKResultMessage = Tagged<P.ResultMessage, "result">;
export type SDKPartialAssistantMessage = Tagged<P.StreamEventMessage, "stream_event">;
export type SDKPromptSuggestionMessage = Tagged<P.PromptSuggestionMessage, "prompt_suggestion">;

/** Every message a query yields (control traffic stays inside the package). */
export type SDKMessage =
  | SDKUserMessage
  | SDKAssistantMessage
  | SDKSystemMessage
  | SDKResultMessage
  | SDKPartialAssistantMessage
  | SDKPromptSuggestionMessage;

export type PermissionUpdate = P.PermissionUpdate;

export type PermissionResult =
  | {
      behavior: "allow";
      /** The input the tool runs with (default: the input the model gave). */
      updatedInput?: Record<string, unknown>;
      updatedPermissions?: PermissionUpdate[];
      toolUseID?: string;
    }
  | { behavior: "deny"; message: string; interrupt?: boolean; toolUseID?: string };

export interface CanUseToolOptions {
  /** Aborted when dcl withdraws the question or the query ends. */
  signal: AbortSignal;
  suggestions?: PermissionUpdate[];
  blockedPath?: string;
  decisionReason?: string;
  toolUseID: string;
  agentID?: string;
  title?: string;
  displayName?: string;
  description?: string;
}

export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: CanUseToolOptions,
) => Promise<PermissionResult> | PermissionResult;

/** The hook events (generated from the engine's one list). */
export type { HookEvent } from "./generated/hookEvents";

export type HookInput = Record<string, unknown> & { hook_event_name: string };

/** What a hook returns, in the wire's names (`continue`, `decision`, `hookSpecificOutput`...). */
export type HookJSONOutput = Record<string, unknown>;

export type HookCallback = (
  input: HookInput,
  toolUseID: string | undefined,
  options: { signal: AbortSignal },
) => Promise<HookJSONOutput> | HookJSONOutput;

export interface HookCallbackMatcher {
  matcher?: string;
  hooks: HookCallback[];
  /** Seconds, for all hooks of this matcher. */
  timeout?: number;
  onFailure?: "continue" | "block";
}

export interface ElicitationRequest {
  serverName: string;
  message: string;
  mode?: string;
  url?: string;
  elicitationId?: string;
  requestedSchema?: Record<string, unknown>;
}

export type ElicitationResult = { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };

export type OnElicitation = (
  request: ElicitationRequest,
  options: { signal: AbortSignal },
) => Promise<ElicitationResult> | ElicitationResult;

export interface SlashCommand {
  name: string;
  description: string;
  argumentHint?: string;
}

export interface ModelInfo {
  value: string;
  displayName: string;
  description: string;
  [k: string]: unknown;
}

export interface McpServerStatus {
  name: string;
  status: "connected" | "failed" | "needs-auth" | "pending" | "disabled";
  serverInfo?: { name: string; version: string };
  error?: string;
  [k: string]: unknown;
}
