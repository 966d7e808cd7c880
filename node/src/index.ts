/**
 * @dcl/agent: dcl's agent core in-process, with the API of
 * @anthropic-ai/claude-agent-sdk (`query`, `tool`, `createSdkMcpServer`, its option and
 * message names; Qoder's option names as aliases).
 */
export { query } from "./query";
export type { Query } from "./query";
export { tool, createSdkMcpServer, SdkMcpServer } from "./mcp";
export type { CallToolResult, McpServerConfig, McpSdkServerConfigWithInstance, SdkMcpToolDefinition } from "./mcp";
export { spawnInProcess, InProcessChild } from "./spawn";
export type { SpawnOptions } from "./spawn";
export type { Options, PermissionMode } from "./options";
export * from "./errors";
export type * from "./types";
export { versions } from "./versions";
export { dclPath } from "./native";
export { listSessions, getSessionInfo, getSessionMessages } from "./sessions";
export type { ListSessionsOptions, GetSessionMessagesOptions, SDKSessionInfo, SessionMessage, SessionHomeOptions } from "./sessions";
