/* eslint-disable */
/**
 * The options JSON dcl sessions open with, generated from
 * core/bridge/schema/session-options.schema.json by scripts/gen-types.mjs.
 * Do not edit: run `npm run gen:types`.
 */

/**
 * How output is framed; only `stream-json` sessions speak the control protocol.
 */
export type OutputFormat = "text" | "json" | "stream-json";

/**
 * Everything a session is opened with. Unknown keys are rejected so typos surface.
 * Its JSON Schema (`dcl_bridge::options_schema`) is the one vocabulary every binding's
 * options type is generated from or checked against.
 */
export interface SessionOptionsJson {
  /**
   * Working directory; relative paths in tools resolve against it. Default: process cwd.
   */
  cwd?: string | null;
  /**
   * Model id or alias (`DCL_MODEL`; else the settings' `model`, else the provider's
   * default, both resolved by the session).
   */
  model?: string | null;
  fallbackModel?: string | null;
  /**
   * `anthropic` (default) or `openai`.
   */
  apiFormat?: string | null;
  baseUrl?: string | null;
  apiKey?: string | null;
  /**
   * `None`: default prompt. `Some("")`: Claude dialect means no prompt at all.
   */
  systemPrompt?: string | null;
  appendSystemPrompt?: string | null;
  permissionMode?: string | null;
  /**
   * `stdio` sends approvals to the host; absent in stream-json mode means the same.
   */
  permissionPromptTool?: string | null;
  allowedTools?: string[];
  disallowedTools?: string[];
  /**
   * Restricts the built-in tool set (`--tools`); `Some([])` means none.
   */
  tools?: string[] | null;
  maxTurns?: number | null;
  /**
   * Thinking budget (`MAX_THINKING_TOKENS`; the option wins).
   */
  maxThinkingTokens?: number | null;
  addDirs?: string[];
  includePartialMessages?: boolean;
  replayUserMessages?: boolean;
  /**
   * `--include-hook-events`: stream `system/hook_started`, `hook_progress` and
   * `hook_response` for every settings-file command hook (stream-json).
   */
  includeHookEvents?: boolean;
  /**
   * Emit the legacy `text` / `tool_start` / `tool_result` / `usage` lines (default on;
   * `DCL_NO_LEGACY_EVENTS` set turns them off).
   */
  legacyEvents?: boolean | null;
  outputFormat?: OutputFormat | null;
  /**
   * `true` for `-p` with text/json output: an "ask" becomes a deny.
   */
  nonInteractive?: boolean;
  sessionId?: string | null;
  jsonSchema?: unknown;
  /**
   * Path of a mock-model script (`DCL_MOCK_SCRIPT`).
   */
  mockScript?: string | null;
  /**
   * Which client dialect to speak (`QODER_AGENT_SDK_ENTRYPOINT` in `env` means Qoder).
   */
  dialect?: "claude" | "qoder";
  /**
   * Environment seen by this session (keys, base URLs) and given to tools' children.
   */
  env?: {
    [k: string]: string;
  };
  /**
   * Seconds to wait for a host answer (permission, hook) before denying. Default 300
   * (`DCL_HOST_TIMEOUT_SECS`).
   */
  hostTimeoutSecs?: number | null;
  /**
   * Longest input line a front end reads, in bytes; a longer one is discarded while it
   * is read, with an error. Default 64 MiB (`DCL_MAX_LINE_BYTES`).
   */
  maxLineBytes?: number | null;
  /**
   * Capacity of the session's input queue, in lines (`DCL_INPUT_QUEUE`).
   */
  inputQueue?: number | null;
  /**
   * Output lines waiting for the front end before producers pause
   * (`DCL_OUTBOX_LINES`).
   */
  outboxLines?: number | null;
  /**
   * `--settings`: inline JSON or a path (relative to `cwd`).
   */
  settings?: string | null;
  /**
   * `--setting-sources user,project,local`; `Some([])` loads no settings files.
   */
  settingSources?: string[] | null;
  /**
   * Stop a turn once the session's cost reaches this many USD.
   */
  maxBudgetUsd?: number | null;
  /**
   * `low` | `medium` | `high` | `max` (or `xhigh`); maps to a thinking budget.
   */
  effort?: string | null;
  /**
   * `--mcp-config` values (inline JSON or paths), in order.
   */
  mcpConfig?: string[];
  /**
   * Use only `--mcp-config` servers, not the configured ones.
   */
  strictMcpConfig?: boolean;
  /**
   * `--resume <id>`: continue that session (its history, totals, model and mode).
   */
  resume?: string | null;
  /**
   * `--continue`: continue the newest session of this directory.
   */
  continueConversation?: boolean;
  /**
   * `--fork-session`: a resumed session goes on under a new session id.
   */
  forkSession?: boolean;
  /**
   * `--resume-session-at <uuid>`: resume the chain only up to this entry.
   */
  resumeSessionAt?: string | null;
  /**
   * `--resume-drops-turn <uuid>`: the prompt of the one turn the resume may drop.
   */
  resumeDropsTurn?: string | null;
  /**
   * `--session-mirror`: emit `transcript_mirror` frames before each result.
   */
  sessionMirror?: boolean;
  /**
   * `--session-store <url>` (else the settings' `sessionStore`): `postgres://…`,
   * `redis://…`, `rediss://…`, `file:/dir`, or `file:` (local transcripts only, the
   * default). Holds credentials: never logged (see `Debug`).
   */
  sessionStore?: string | null;
  /**
   * `--data-dir`: dcl home (else `DCL_CONFIG_DIR`, else `~/.dcl`).
   */
  dataDir?: string | null;
  /**
   * `false` (`--no-session-persistence`) writes no transcript.
   */
  persistSession?: boolean | null;
  /**
   * `--agents`: subagent definitions `{name: {description, prompt, tools?, model?…}}`.
   */
  agents?: {
    [k: string]: unknown;
  } | null;
  /**
   * `--agent`: the agent the main thread runs as.
   */
  agent?: string | null;
  /**
   * Record file checkpoints so `rewind_files` can undo edits (`--enable-file-checkpointing`).
   */
  enableFileCheckpointing?: boolean;
  /**
   * `--sandbox`: Bash and background shells run in the OS sandbox, as the settings'
   * `sandbox.enabled: true` asks (either one turns it on).
   */
  sandbox?: boolean;
  /**
   * `--plugin-dir`s: plugin folders to load (relative to `cwd`).
   */
  pluginDirs?: string[];
  /**
   * `--plugin-dir-no-mcp`s: plugin folders loaded without their MCP servers.
   */
  pluginDirsNoMcp?: string[];
  /**
   * Flags that were accepted for compatibility but have no effect yet; each is
   * reported to the host as a warning.
   */
  ignoredFlags?: string[];
  /**
   * `--managed-settings`: policy settings (inline JSON or a path) above every layer.
   */
  managedSettings?: string | null;
  /**
   * `--await-initialize`: the front end opens the session only when `initialize` has
   * arrived, with what it delivers (`settings`, `mcpServers`, …) folded in.
   */
  awaitInitialize?: boolean;
  /**
   * `--await-claim`: a prewarmed spare; the session the host uses opens at
   * `claim_session`, with the claim's cwd, env and options.
   */
  awaitClaim?: boolean;
  /**
   * The `initialize` fields already folded into these options (by
   * [`crate::delivery::absorb_initialize`]), answered as applied.
   */
  deliveredInInitialize?: string[];
}

/** Every key of the options JSON, as the engine reads it. */
export const SESSION_OPTION_KEYS: readonly (keyof SessionOptionsJson)[] = [
  "cwd",
  "model",
  "fallbackModel",
  "apiFormat",
  "baseUrl",
  "apiKey",
  "systemPrompt",
  "appendSystemPrompt",
  "permissionMode",
  "permissionPromptTool",
  "allowedTools",
  "disallowedTools",
  "tools",
  "maxTurns",
  "maxThinkingTokens",
  "addDirs",
  "includePartialMessages",
  "replayUserMessages",
  "includeHookEvents",
  "legacyEvents",
  "outputFormat",
  "nonInteractive",
  "sessionId",
  "jsonSchema",
  "mockScript",
  "dialect",
  "env",
  "hostTimeoutSecs",
  "maxLineBytes",
  "inputQueue",
  "outboxLines",
  "settings",
  "settingSources",
  "maxBudgetUsd",
  "effort",
  "mcpConfig",
  "strictMcpConfig",
  "resume",
  "continueConversation",
  "forkSession",
  "resumeSessionAt",
  "resumeDropsTurn",
  "sessionMirror",
  "sessionStore",
  "dataDir",
  "persistSession",
  "agents",
  "agent",
  "enableFileCheckpointing",
  "sandbox",
  "pluginDirs",
  "pluginDirsNoMcp",
  "ignoredFlags",
  "managedSettings",
  "awaitInitialize",
  "awaitClaim",
  "deliveredInInitialize"
];
