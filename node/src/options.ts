/**
 * Session options: @anthropic-ai/claude-agent-sdk's names (Qoder's where they differ are
 * aliases), turned into dcl's options JSON (`SessionOptions`, validated once, in Rust).
 */
import fs from "node:fs";
import path from "node:path";

import { InvalidOptionsError } from "./errors";
import type { CanUseTool, HookCallbackMatcher, HookEvent, OnElicitation } from "./types";
import type { McpServerConfig } from "./mcp";

export type PermissionMode = "default" | "acceptEdits" | "bypassPermissions" | "plan" | "dontAsk";

/** `@anthropic-ai/claude-agent-sdk`'s `Options`, the fields dcl acts on, plus Qoder's and dcl's own. */
export interface Options {
  abortController?: AbortController;
  additionalDirectories?: string[];
  agents?: Record<string, Record<string, unknown>>;
  /** The main thread runs as this agent (one of `agents` or a file-defined one). */
  agent?: string;
  /** Subagents' text reaches this stream too (their messages carry `parent_tool_use_id`). */
  forwardSubagentText?: boolean;
  /** Periodic progress frames for running subagents. */
  agentProgressSummaries?: boolean;
  /** Plugin folders (`{type: "local", path}`), as `--plugin-dir`. */
  plugins?: { type: "local"; path: string }[];
  /** `false`: no transcript is written. */
  persistSession?: boolean;
  allowedTools?: string[];
  canUseTool?: CanUseTool;
  cwd?: string;
  disallowedTools?: string[];
  /** Restricts the built-in tools (`[]`: none; `{type: "preset", preset: "claude_code"}`: all). */
  tools?: string[] | { type: "preset"; preset: string };
  /** Added to `process.env` for the session and its tools (`undefined` removes a variable). */
  env?: Record<string, string | undefined>;
  /** CLI flags without an option (`{"replay-user-messages": null}`); others are warned about. */
  extraArgs?: Record<string, string | null>;
  fallbackModel?: string;
  enableFileCheckpointing?: boolean;
  hooks?: Partial<Record<HookEvent, HookCallbackMatcher[]>>;
  onElicitation?: OnElicitation;
  includePartialMessages?: boolean;
  thinking?: { type: "enabled"; budgetTokens?: number } | { type: "disabled" } | { type: "adaptive" };
  effort?: "low" | "medium" | "high" | "xhigh" | "max";
  maxThinkingTokens?: number;
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** stdio / http / sse configs, or in-process servers from `createSdkMcpServer`. */
  mcpServers?: Record<string, McpServerConfig>;
  /** `"mock-model"` is dcl's built-in offline model. */
  model?: string;
  outputFormat?: { type: "json_schema"; schema: Record<string, unknown> };
  permissionMode?: PermissionMode;
  allowDangerouslySkipPermissions?: boolean;
  permissionPromptToolName?: string;
  promptSuggestions?: boolean;
  sessionId?: string;
  settings?: string | Record<string, unknown>;
  settingSources?: ("user" | "project" | "local")[];
  skills?: string[] | "all";
  strictMcpConfig?: boolean;
  /** Unset or `""`: no system prompt (as with the SDK); a string (or lines); or a preset with `append`. */
  systemPrompt?: string | string[] | { type: "preset"; preset?: string; append?: string };
  /** Resume the newest saved session of `cwd`. */
  continue?: boolean;
  /** Resume this saved session (its history, totals, model and permission mode). */
  resume?: string;
  /** With `resume`/`continue`: go on under a new session id, leaving the source as it was. */
  forkSession?: boolean;
  /**
   * A URL string drains the session to a shared store so any worker resumes it:
   * `postgres://…`, `redis://…`, `rediss://…`, `file:/dir`; `file:` (the default) keeps it
   * local. An SDK `SessionStore` object is accepted with a warning and not acted on.
   */
  sessionStore?: string | object;
  /** Resume the chain only up to this message uuid. */
  resumeSessionAt?: string;
  /** Resume without this turn (its prompt's uuid); refused unless it is the last turn. */
  resumeDropsTurn?: string;
  includeHookEvents?: boolean;
  /** Ignored in-process (there is no executable to run), accepted so SDK code carries over. */
  pathToClaudeCodeExecutable?: string;
  executable?: string;
  executableArgs?: string[];
  stderr?: (data: string) => void;
  spawnClaudeCodeProcess?: unknown;
  // Qoder's names
  /** Qoder: `true` is `permissionMode: "plan"`. */
  planMode?: boolean;
  /** Qoder: how long a control request to dcl may take (default 60 s). */
  controlRequestTimeoutMs?: number;
  pathToQoderCLIExecutable?: string;
  spawnQoderCLIProcess?: unknown;
  // dcl's own
  /** `"claude"` (default) or `"qoder"`: which SDK's protocol flavour to speak. */
  dialect?: "claude" | "qoder";
  /** Seconds dcl waits for a `canUseTool` / hook / MCP answer (default 300). */
  hostTimeout?: number;
  /**
   * Run the session in this `dcl` executable, a child process driven by the same Rust host
   * over its stdio (`DCL_CLI_PATH` sets a default): callbacks, hooks, in-process MCP
   * servers and every option behave as in process.
   */
  cliPath?: string;
  mockScript?: string;
  baseUrl?: string;
  apiKey?: string;
  apiFormat?: "anthropic" | "openai";
}

/** Options without meaning in-process (no child process, no CLI binary): dropped quietly. */
const NO_MEANING = new Set([
  "abortController",
  "pathToClaudeCodeExecutable",
  "pathToQoderCLIExecutable",
  "executable",
  "executableArgs",
  "stderr",
  "spawnClaudeCodeProcess",
  "spawnQoderCLIProcess",
  "debug",
  "debugFile",
  "loadTimeoutMs",
]);

/** The SDKs' options dcl does not act on yet: accepted, reported as a warning. */
const NOT_YET = new Set([
  "toolAliases",
  "toolConfig",
  "betas",
  "onUserDialog",
  "supportedDialogKinds",
  "perTaskStopAffordance",
  "sessionStore",
  "sessionStoreFlush",
  "verbatimPrompts",
  "taskBudget",
  "mcpServersDelivery",
  "planModeInstructions",
  "permissionPrompts",
  "pluginDelivery",
  "sandbox",
  "managedSettings",
  "title",
  "projectConfigRoot",
  "allowedMcpServerNames",
  "extensions",
  "proxy",
]);

const KNOWN = new Set([
  "additionalDirectories",
  "agents",
  "agent",
  "persistSession",
  "forwardSubagentText",
  "plugins",
  "agentProgressSummaries",
  "allowedTools",
  "canUseTool",
  "cwd",
  "disallowedTools",
  "tools",
  "env",
  "extraArgs",
  "fallbackModel",
  "enableFileCheckpointing",
  "hooks",
  "onElicitation",
  "includePartialMessages",
  "thinking",
  "effort",
  "maxThinkingTokens",
  "maxTurns",
  "maxBudgetUsd",
  "mcpServers",
  "model",
  "outputFormat",
  "permissionMode",
  "allowDangerouslySkipPermissions",
  "permissionPromptToolName",
  "promptSuggestions",
  "sessionId",
  "settings",
  "settingSources",
  "skills",
  "strictMcpConfig",
  "systemPrompt",
  "continue",
  "resume",
  "forkSession",
  "resumeSessionAt",
  "resumeDropsTurn",
  "includeHookEvents",
  "planMode",
  "controlRequestTimeoutMs",
  "dialect",
  "hostTimeout",
  "cliPath",
  "mockScript",
  "baseUrl",
  "apiKey",
  "apiFormat",
]);

/** Flags `extraArgs` may carry (same spelling as dcl's CLI) and their options key. */
const EXTRA_FLAGS: Record<string, [string, "flag" | "str" | "int" | "float"]> = {
  "replay-user-messages": ["replayUserMessages", "flag"],
  "include-partial-messages": ["includePartialMessages", "flag"],
  "include-hook-events": ["includeHookEvents", "flag"],
  "mock-script": ["mockScript", "str"],
  "api-format": ["apiFormat", "str"],
  "base-url": ["baseUrl", "str"],
  "fallback-model": ["fallbackModel", "str"],
  model: ["model", "str"],
  "session-id": ["sessionId", "str"],
  "max-turns": ["maxTurns", "int"],
  "max-thinking-tokens": ["maxThinkingTokens", "int"],
  "host-timeout": ["hostTimeoutSecs", "float"],
  "permission-mode": ["permissionMode", "str"],
  "append-system-prompt": ["appendSystemPrompt", "str"],
  "system-prompt": ["systemPrompt", "str"],
};

/** What the host side needs besides the options JSON. */
export interface Resolved {
  json: Record<string, unknown>;
  /** Options accepted but not acted on (also sent as `ignoredFlags`). */
  ignored: string[];
}

export function isSdkServer(config: unknown): config is { type: "sdk"; name: string; instance: unknown } {
  return typeof config === "object" && config !== null && (config as { type?: unknown }).type === "sdk";
}

function fail(option: string, message: string): never {
  throw new InvalidOptionsError(`invalid session options: ${option}: ${message}`, option);
}

function systemPrompt(opts: Options, out: Record<string, unknown>): void {
  const sp = opts.systemPrompt;
  if (sp === undefined || typeof sp === "string") {
    out.systemPrompt = sp ?? "";
  } else if (Array.isArray(sp)) {
    out.systemPrompt = sp.join("\n");
  } else if (typeof sp === "object" && sp !== null && sp.type === "preset") {
    if (sp.append) out.appendSystemPrompt = sp.append;
  } else {
    fail("systemPrompt", "expected a string, an array of strings or {type: 'preset'}");
  }
}

function extraArgs(opts: Options, out: Record<string, unknown>, ignored: string[]): void {
  for (const [flag, value] of Object.entries(opts.extraArgs ?? {})) {
    const name = flag.replace(/^-+/, "");
    const known = EXTRA_FLAGS[name];
    if (known === undefined) {
      ignored.push(`--${name}`);
      continue;
    }
    const [key, kind] = known;
    if (kind === "flag") {
      out[key] = true;
    } else if (value === null || value === undefined) {
      fail("extraArgs", `--${name} needs a value`);
    } else if (kind === "int" || kind === "float") {
      const n = Number(value);
      if (!Number.isFinite(n) || (kind === "int" && !Number.isInteger(n))) fail("extraArgs", `--${name} ${value}: expected a number`);
      out[key] = n;
    } else {
      out[key] = String(value);
    }
  }
}

/**
 * The options JSON for the addon's `open`. Keys are written only when set, so defaults
 * stay dcl's. With `sdkServersInMcpConfig`, in-process servers are listed in `mcpConfig`
 * as `{"type": "sdk"}` entries; otherwise they are announced in `initialize`.
 */
export function sessionOptions(
  opts: Options,
  { sdkServersInMcpConfig = false, baseEnv = process.env }: { sdkServersInMcpConfig?: boolean; baseEnv?: NodeJS.ProcessEnv } = {},
): Resolved {
  if (opts === null || typeof opts !== "object") fail("options", "expected an object");
  const ignored: string[] = [];
  for (const key of Object.keys(opts)) {
    if ((opts as Record<string, unknown>)[key] === undefined) continue;
    if (KNOWN.has(key) || NO_MEANING.has(key)) continue;
    // A store URL is dcl's own session store; an SDK store object is not acted on yet.
    if (key === "sessionStore" && typeof opts.sessionStore === "string") continue;
    if (NOT_YET.has(key)) {
      ignored.push(key);
      continue;
    }
    fail(key, `unknown option \`${key}\``);
  }
  if (opts.canUseTool && opts.permissionPromptToolName && opts.permissionPromptToolName !== "stdio") {
    fail("canUseTool", "canUseTool cannot be used with permissionPromptToolName; use one or the other");
  }
  for (const fn of ["canUseTool", "onElicitation"] as const) {
    if (opts[fn] !== undefined && typeof opts[fn] !== "function") fail(fn, "expected a function");
  }

  const out: Record<string, unknown> = { outputFormat: "stream-json", legacyEvents: false };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(baseEnv)) if (typeof v === "string") env[k] = v;
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined || v === null) delete env[k];
    else env[k] = String(v);
  }
  if (opts.cwd !== undefined) {
    if (typeof opts.cwd !== "string") fail("cwd", "expected a string");
    const cwd = path.resolve(opts.cwd);
    // dcl rejects a missing directory too, but without naming the option.
    if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) fail("cwd", `${cwd} is not a directory`);
    out.cwd = cwd;
    env.PWD = cwd;
  }
  if (opts.enableFileCheckpointing) env.CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING = "true";
  out.env = env;

  if (opts.model !== undefined) out.model = opts.model;
  if (opts.fallbackModel !== undefined) out.fallbackModel = opts.fallbackModel;
  systemPrompt(opts, out);

  let mode: string | undefined = opts.permissionMode;
  if (opts.planMode) mode = "plan";
  else if (mode === undefined && opts.allowDangerouslySkipPermissions) mode = "bypassPermissions";
  if (mode !== undefined) out.permissionMode = mode;
  if (opts.canUseTool) out.permissionPromptTool = "stdio";
  else if (opts.permissionPromptToolName) out.permissionPromptTool = opts.permissionPromptToolName;

  const allowed = [...(opts.allowedTools ?? [])];
  if (opts.skills === "all") allowed.push("Skill");
  else if (Array.isArray(opts.skills)) allowed.push(...opts.skills.map((s) => `Skill(${s})`));
  if (allowed.length) out.allowedTools = allowed;
  if (opts.disallowedTools?.length) out.disallowedTools = [...opts.disallowedTools];
  if (Array.isArray(opts.tools)) out.tools = [...opts.tools];
  else if (opts.tools !== undefined) out.tools = ["default"];

  if (opts.maxTurns !== undefined) out.maxTurns = opts.maxTurns;
  if (opts.maxBudgetUsd !== undefined) out.maxBudgetUsd = opts.maxBudgetUsd;
  if (opts.effort !== undefined) out.effort = opts.effort;
  const thinking = opts.thinking;
  if (thinking?.type === "enabled" && thinking.budgetTokens !== undefined) out.maxThinkingTokens = thinking.budgetTokens;
  else if (thinking?.type === "disabled") out.maxThinkingTokens = 0;
  else if (thinking !== undefined) ignored.push(`thinking: ${thinking.type}`);
  else if (opts.maxThinkingTokens !== undefined) out.maxThinkingTokens = opts.maxThinkingTokens;

  if (opts.additionalDirectories?.length) out.addDirs = [...opts.additionalDirectories];
  if (opts.includePartialMessages) out.includePartialMessages = true;
  if (opts.sessionId !== undefined) out.sessionId = opts.sessionId;
  if (opts.settings !== undefined) out.settings = typeof opts.settings === "string" ? opts.settings : JSON.stringify(opts.settings);
  if (opts.settingSources !== undefined) out.settingSources = [...opts.settingSources];
  if (opts.outputFormat?.type === "json_schema") out.jsonSchema = opts.outputFormat.schema;

  const servers = opts.mcpServers;
  if (servers !== undefined) {
    if (typeof servers !== "object" || servers === null) fail("mcpServers", "expected an object of server configs");
    const config: Record<string, unknown> = {};
    for (const [name, cfg] of Object.entries(servers)) {
      if (isSdkServer(cfg)) {
        if (sdkServersInMcpConfig) config[name] = { type: "sdk", name };
      } else {
        config[name] = cfg;
      }
    }
    if (Object.keys(config).length) out.mcpConfig = [JSON.stringify({ mcpServers: config })];
  }
  if (opts.strictMcpConfig) out.strictMcpConfig = true;

  if (opts.dialect !== undefined) out.dialect = opts.dialect;
  if (opts.hostTimeout !== undefined) out.hostTimeoutSecs = opts.hostTimeout;
  if (opts.mockScript !== undefined) out.mockScript = opts.mockScript;
  if (opts.baseUrl !== undefined) out.baseUrl = opts.baseUrl;
  if (opts.apiKey !== undefined) out.apiKey = opts.apiKey;
  if (opts.apiFormat !== undefined) out.apiFormat = opts.apiFormat;

  if (opts.resume !== undefined) out.resume = opts.resume;
  if (opts.continue) out.continueConversation = true;
  if (opts.forkSession) out.forkSession = true;
  if (typeof opts.sessionStore === "string") out.sessionStore = opts.sessionStore;
  if (opts.resumeSessionAt !== undefined) out.resumeSessionAt = opts.resumeSessionAt;
  if (opts.resumeDropsTurn !== undefined) out.resumeDropsTurn = opts.resumeDropsTurn;
  if (opts.includeHookEvents) out.includeHookEvents = true;
  if (opts.persistSession === false) out.persistSession = false;
  if (opts.plugins !== undefined) {
    if (!Array.isArray(opts.plugins)) fail("plugins", "expected an array of {type: 'local', path}");
    const dirs: string[] = [];
    for (const p of opts.plugins) {
      if (p?.type !== "local" || typeof p.path !== "string") fail("plugins", `only {type: "local", path} plugins are supported, not ${JSON.stringify(p)}`);
      dirs.push(path.resolve(opts.cwd ?? ".", p.path));
    }
    out.pluginDirs = dirs;
  }
  extraArgs(opts, out, ignored);
  if (ignored.length) out.ignoredFlags = ignored;
  return { json: out, ignored };
}
