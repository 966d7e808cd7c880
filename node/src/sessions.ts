/**
 * Sessions on disk, listed and read as @anthropic-ai/claude-agent-sdk's `listSessions` /
 * `getSessionMessages` do. dcl writes every session's transcript in the reference CLI's
 * layout (`<home>/projects/<project key>/<session id>.jsonl`), so these and the SDK's own
 * helpers see the same sessions. Homes follow the environment as a session would:
 * `DCL_CONFIG_DIR` (or `dataDir`), `CLAUDE_CONFIG_DIR` / `~/.claude`, `~/.dcl`.
 */
import path from "node:path";

import { native } from "./native";

/** Where to look: the environment the homes resolve from, and dcl's data dir. */
export interface SessionHomeOptions {
  /** The environment to resolve homes from; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** As the `--data-dir` / `dataDir` session option. */
  dataDir?: string;
}

export interface ListSessionsOptions extends SessionHomeOptions {
  /** This project's sessions; omitted: every project's. */
  dir?: string;
  /** At most this many (after `offset`). */
  limit?: number;
  /** Skip this many of the newest first. */
  offset?: number;
}

export interface GetSessionMessagesOptions extends SessionHomeOptions {
  /** The project to find the session in; omitted: every project. */
  dir?: string;
  limit?: number;
  offset?: number;
}

/** One session, as `listSessions` reports it (the SDK's `SDKSessionInfo`). */
export interface SDKSessionInfo {
  sessionId: string;
  /** Custom title, else the last prompt, else a summary line, else the first prompt. */
  summary: string;
  /** Milliseconds since the epoch. */
  lastModified: number;
  fileSize?: number;
  customTitle?: string;
  firstPrompt?: string;
  gitBranch?: string;
  cwd?: string;
  tag?: string;
  /** Milliseconds since the epoch, from the first entry. */
  createdAt?: number;
}

/** A message of a saved session (the SDK's `SessionMessage`). */
export interface SessionMessage {
  type: "user" | "assistant" | "system";
  uuid: string;
  session_id: string;
  message: unknown;
  parent_tool_use_id: string | null;
  parent_agent_id: string | null;
}

interface NativeSessionInfo {
  session_id: string;
  summary: string;
  last_modified: number;
  file_size: number;
  custom_title: string | null;
  first_prompt: string | null;
  git_branch: string | null;
  cwd: string | null;
  tag: string | null;
  created_at: number | null;
}

async function request(op: "list" | "messages", dir: string | undefined, home: SessionHomeOptions, extra: object): Promise<unknown> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(home.env ?? process.env)) if (typeof v === "string") env[k] = v;
  const req: Record<string, unknown> = { op, env, ...extra };
  if (dir !== undefined) req.directory = path.resolve(dir);
  if (home.dataDir !== undefined) req.dataDir = path.resolve(home.dataDir);
  return JSON.parse(await native().sessions(JSON.stringify(req)));
}

function page<T>(items: T[], offset?: number, limit?: number): T[] {
  for (const [name, n] of [["offset", offset], ["limit", limit]] as const) {
    if (n !== undefined && (!Number.isInteger(n) || n < 0)) throw new TypeError(`${name} must be a non-negative integer, not ${n}`);
  }
  const start = offset ?? 0;
  return items.slice(start, limit === undefined ? undefined : start + limit);
}

const orUndefined = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

/** Sessions newest first: `dir`'s, or every project's when `dir` is omitted. */
export async function listSessions(options: ListSessionsOptions = {}): Promise<SDKSessionInfo[]> {
  const raw = (await request("list", options.dir, options, {})) as NativeSessionInfo[];
  return page(raw, options.offset, options.limit).map((s) => ({
    sessionId: s.session_id,
    summary: s.summary,
    lastModified: s.last_modified,
    fileSize: s.file_size,
    customTitle: orUndefined(s.custom_title),
    firstPrompt: orUndefined(s.first_prompt),
    gitBranch: orUndefined(s.git_branch),
    cwd: orUndefined(s.cwd),
    tag: orUndefined(s.tag),
    createdAt: orUndefined(s.created_at),
  }));
}

/** One session's info, or `undefined` when no home holds it. */
export async function getSessionInfo(sessionId: string, options: Omit<ListSessionsOptions, "limit" | "offset"> = {}): Promise<SDKSessionInfo | undefined> {
  return (await listSessions(options)).find((s) => s.sessionId === sessionId);
}

/** A session's user and assistant messages, root first; empty when no home holds it. */
export async function getSessionMessages(sessionId: string, options: GetSessionMessagesOptions = {}): Promise<SessionMessage[]> {
  if (typeof sessionId !== "string") throw new TypeError("sessionId must be a string");
  const raw = (await request("messages", options.dir, options, { sessionId })) as Array<Omit<SessionMessage, "parent_agent_id"> & { parent_agent_id?: string | null }>;
  return page(raw, options.offset, options.limit).map((m) => ({ ...m, parent_agent_id: m.parent_agent_id ?? null }));
}
