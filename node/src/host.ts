/**
 * The host side of the control protocol over one in-process session.
 *
 * A read loop pulls every outbound line from the addon (`recv`, a batch per wake-up).
 * Normal messages go to a queue the user iterates; control requests from dcl
 * (`can_use_tool`, `hook_callback`, `mcp_message`, `elicitation`) each run in their own
 * task, which calls the user's function and answers with a `control_response`; control
 * responses settle the requests this side made (`initialize`, `interrupt`, `set_model`...).
 * This is what @anthropic-ai/claude-agent-sdk's `Query` does over a child's pipes.
 */
import { randomBytes } from "node:crypto";

import {
  AbortError,
  CLIConnectionError,
  ControlRequestError,
  DclError,
  fromNative,
  openFailure,
} from "./errors";
import { isSdkServer, sessionOptions, type Options } from "./options";
import { SdkMcpServer } from "./mcp";
import { isSession, native, type NativeSession } from "./native";
import type { HookCallback, PermissionResult, SDKMessage } from "./types";

type Json = Record<string, unknown>;

/** How long a retry waits when the session's input queue is full. */
const BUSY_RETRY_MS = 2;

function asObject(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

/** A `canUseTool` answer in wire form (`updatedInput` always present on allow). */
export function permissionWire(result: PermissionResult, original: Json, toolUseId: unknown): Json {
  const r = asObject(result);
  if (r.behavior === "allow") {
    const out: Json = { ...r, updatedInput: r.updatedInput ?? original };
    if (typeof toolUseId === "string" && out.toolUseID === undefined) out.toolUseID = toolUseId;
    return out;
  }
  if (r.behavior === "deny") {
    const out: Json = { ...r, message: typeof r.message === "string" ? r.message : "" };
    if (typeof toolUseId === "string" && out.toolUseID === undefined) out.toolUseID = toolUseId;
    return out;
  }
  throw new TypeError(`canUseTool must return {behavior: "allow" | "deny"}, got ${JSON.stringify(result)}`);
}

/** An async queue of messages, ended once; a failure is thrown to the reader after the rest. */
class MessageQueue {
  #items: SDKMessage[] = [];
  #waiters: Array<() => void> = [];
  #ended = false;
  #failure: unknown;

  push(m: SDKMessage): void {
    this.#items.push(m);
    this.#wake();
  }

  end(failure?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#failure = failure;
    this.#wake();
  }

  /** Ends now: queued messages are dropped and the reader gets `failure` next. */
  fail(failure: unknown): void {
    this.#items = [];
    this.#ended = false;
    this.end(failure);
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  async *drain(): AsyncGenerator<SDKMessage, void> {
    for (;;) {
      if (this.#items.length) {
        yield this.#items.shift() as SDKMessage;
        continue;
      }
      if (this.#ended) {
        if (this.#failure !== undefined) throw this.#failure;
        return;
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }
}

export class HostSession {
  readonly options: Options;
  #sdkInConfig: boolean;
  #native: NativeSession | undefined;
  #queue = new MessageQueue();
  #reader: Promise<void> | undefined;
  #pending = new Map<string, { resolve: (r: Json) => void; reject: (e: unknown) => void }>();
  #handlers = new Map<string, AbortController>();
  #hooks = new Map<string, HookCallback>();
  #mcp = new Map<string, SdkMcpServer>();
  #outbox: string[] = [];
  #outboxWaiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  #flushTimer: NodeJS.Timeout | undefined;
  #counter = 0;
  #resultWaiters: Array<() => void> = [];
  #aborted = false;
  #onAbort = () => this.abort();
  serverInfo: Json | undefined;
  results = 0;
  lastErrorResult: Json | undefined;
  ended = false;

  constructor(options: Options, { sdkServersInMcpConfig = false } = {}) {
    this.options = options;
    this.#sdkInConfig = sdkServersInMcpConfig;
  }

  get sessionId(): string | undefined {
    return this.#native?.sessionId;
  }

  /** Whether dcl may need answers from this side while a turn runs. */
  get bidirectional(): boolean {
    const o = this.options;
    return Boolean(o.canUseTool || o.onElicitation || (o.hooks && Object.keys(o.hooks).length) || this.#mcp.size);
  }

  /** Opens the session, starts the read loop and sends `initialize`. */
  async start(): Promise<Json> {
    const { json, ignored } = sessionOptions(this.options, { sdkServersInMcpConfig: this.#sdkInConfig });
    if (ignored.length) {
      process.emitWarning(`dcl does not act on these options yet: ${ignored.join(", ")}`, { code: "DCL_IGNORED_OPTIONS" });
    }
    for (const [name, cfg] of Object.entries(this.options.mcpServers ?? {})) {
      if (!isSdkServer(cfg)) continue;
      if (!(cfg.instance instanceof SdkMcpServer)) {
        throw new TypeError(`mcpServers[${JSON.stringify(name)}] is not a @dcl/agent server; make it with createSdkMcpServer`);
      }
      this.#mcp.set(name, cfg.instance);
    }
    const signal = this.options.abortController?.signal;
    if (signal?.aborted) throw new AbortError("the query was aborted before it started");
    const opened = native().open(JSON.stringify(json));
    if (!isSession(opened)) throw openFailure(opened);
    this.#native = opened;
    signal?.addEventListener("abort", this.#onAbort, { once: true });
    this.#reader = this.#readLoop(opened);
    const timeout = Math.max(this.options.controlRequestTimeoutMs ?? 60_000, 60_000);
    this.serverInfo = await this.request(this.#initializeRequest(), timeout);
    return this.serverInfo;
  }

  #initializeRequest(): Json {
    const hooks: Json = {};
    for (const [event, matchers] of Object.entries(this.options.hooks ?? {})) {
      const entries = [];
      for (const m of matchers ?? []) {
        const ids = [];
        for (const cb of m.hooks ?? []) {
          const id = `hook_${this.#hooks.size}`;
          this.#hooks.set(id, cb);
          ids.push(id);
        }
        const entry: Json = { matcher: m.matcher ?? null, hookCallbackIds: ids };
        if (m.timeout !== undefined) entry.timeout = m.timeout;
        if (m.onFailure !== undefined) entry.onFailure = m.onFailure;
        entries.push(entry);
      }
      if (entries.length) hooks[event] = entries;
    }
    const request: Json = { subtype: "initialize", hooks: Object.keys(hooks).length ? hooks : null };
    if (this.#mcp.size && !this.#sdkInConfig) request.sdkMcpServers = [...this.#mcp.keys()];
    if (this.options.agents) request.agents = this.options.agents;
    if (this.options.agent !== undefined) request.agent = this.options.agent;
    if (this.options.forwardSubagentText) request.forwardSubagentText = true;
    if (this.options.agentProgressSummaries) request.agentProgressSummaries = true;
    if (Array.isArray(this.options.skills)) request.skills = [...this.options.skills];
    if (this.options.promptSuggestions) request.promptSuggestions = true;
    return request;
  }

  /** No more prompts: queued turns finish, then the message stream ends. */
  endInput(): void {
    if (this.ended) return;
    // Lines still waiting for room go first.
    this.#whenFlushed().then(
      () => this.#native?.endInput(),
      () => undefined,
    );
  }

  /** Stops the session now (a running turn is cancelled) and waits for the read loop. */
  async close(): Promise<void> {
    this.options.abortController?.signal.removeEventListener("abort", this.#onAbort);
    this.#native?.close();
    for (const c of this.#handlers.values()) c.abort();
    await this.#reader?.catch(() => undefined);
    this.ended = true;
  }

  /** Stops the session without an error: the message stream just ends. */
  stop(): void {
    this.#native?.close();
    for (const c of this.#handlers.values()) c.abort();
  }

  /** Aborted through `abortController`: the session stops and the reader sees `AbortError`. */
  abort(): void {
    this.#aborted = true;
    // As with the SDK's killed child: nothing after the abort reaches the reader.
    this.#queue.fail(new AbortError("Claude Code process aborted by user"));
    this.#native?.close();
    for (const c of this.#handlers.values()) c.abort();
  }

  // ------------------------------------------------------------------ output

  async #readLoop(session: NativeSession): Promise<void> {
    let failure: unknown;
    try {
      for (;;) {
        const batch = await session.recv(256);
        for (const line of batch.lines) {
          let msg: unknown;
          try {
            msg = JSON.parse(line);
          } catch {
            process.emitWarning(`dcl sent a line that is not JSON: ${line.slice(0, 200)}`);
            continue;
          }
          this.#route(asObject(msg));
        }
        if (batch.ended) break;
      }
    } catch (e) {
      failure = fromNative(e);
    } finally {
      this.ended = true;
      const gone = new CLIConnectionError("the session ended before answering");
      for (const p of this.#pending.values()) p.reject(gone);
      this.#pending.clear();
      for (const w of this.#outboxWaiters.splice(0)) w.reject(gone);
      this.#outbox = [];
      for (const c of this.#handlers.values()) c.abort();
      this.#wakeResults();
      if (this.#aborted && failure === undefined) failure = new AbortError("Claude Code process aborted by user");
      this.#queue.end(failure);
    }
  }

  #route(msg: Json): void {
    switch (msg.type) {
      case "control_response": {
        const response = asObject(msg.response);
        const id = String(response.request_id);
        const p = this.#pending.get(id);
        if (p !== undefined) {
          this.#pending.delete(id);
          p.resolve(response);
        }
        return;
      }
      case "control_request": {
        const id = String(msg.request_id);
        const controller = new AbortController();
        this.#handlers.set(id, controller);
        void this.#handle(id, asObject(msg.request), controller.signal).finally(() => this.#handlers.delete(id));
        return;
      }
      case "control_cancel_request":
        this.#handlers.get(String(msg.request_id))?.abort();
        return;
      case "keep_alive":
        return;
      case "system":
        if (msg.subtype === "session_state_changed" && msg.sdk_host_only) return;
        break;
      case "result":
        this.results += 1;
        this.lastErrorResult = msg.is_error ? msg : undefined;
        this.#wakeResults();
        break;
      default:
        break;
    }
    if (msg.type !== "result") this.lastErrorResult = undefined;
    this.#queue.push(msg as SDKMessage);
  }

  #wakeResults(): void {
    for (const w of this.#resultWaiters.splice(0)) w();
  }

  /** Every normal outbound message, in order, until the session ends. */
  messages(): AsyncGenerator<SDKMessage, void> {
    return this.#queue.drain();
  }

  /** Waits until `count` results have been read or the session ended. */
  async waitForResults(count: number): Promise<void> {
    while (this.results < count && !this.ended) {
      await new Promise<void>((resolve) => this.#resultWaiters.push(resolve));
    }
  }

  // ------------------------------------------------------------------ input

  /** Sends one protocol message; resolves once the session took it. */
  write(message: Json): Promise<void> {
    return this.writeLine(JSON.stringify(message));
  }

  /** Sends one line, keeping order; a full input queue is retried, never dropped. */
  writeLine(line: string): Promise<void> {
    const session = this.#native;
    if (session === undefined) return Promise.reject(new CLIConnectionError("Not connected"));
    if (this.#outbox.length === 0) {
      try {
        if (session.trySend(line)) return Promise.resolve();
      } catch (e) {
        return Promise.reject(fromNative(e));
      }
    }
    this.#outbox.push(line);
    const taken = new Promise<void>((resolve, reject) => this.#outboxWaiters.push({ resolve, reject }));
    this.#scheduleFlush();
    return taken;
  }

  #scheduleFlush(): void {
    if (this.#flushTimer !== undefined) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      this.#flush();
    }, BUSY_RETRY_MS);
  }

  #flush(): void {
    const session = this.#native;
    while (session !== undefined && this.#outbox.length) {
      let taken: boolean;
      try {
        taken = session.trySend(this.#outbox[0] as string);
      } catch (e) {
        this.#outbox.shift();
        this.#outboxWaiters.shift()?.reject(fromNative(e));
        continue;
      }
      if (!taken) {
        this.#scheduleFlush();
        return;
      }
      this.#outbox.shift();
      this.#outboxWaiters.shift()?.resolve();
    }
  }

  #whenFlushed(): Promise<void> {
    if (this.#outbox.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const last = this.#outboxWaiters[this.#outboxWaiters.length - 1];
      if (last === undefined) return resolve();
      const { resolve: r0, reject: j0 } = last;
      last.resolve = () => {
        r0();
        resolve();
      };
      last.reject = (e) => {
        j0(e);
        reject(e);
      };
    });
  }

  /** Sends a control request to dcl and returns the `response` payload. */
  async request(request: Json, timeoutMs = 60_000): Promise<Json> {
    const subtype = String(request.subtype);
    if (this.ended) throw new CLIConnectionError(`the session has ended; cannot send ${subtype}`);
    this.#counter += 1;
    const id = `req_${this.#counter}_${randomBytes(4).toString("hex")}`;
    let timer: NodeJS.Timeout | undefined;
    const answer = new Promise<Json>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new ControlRequestError(subtype, `Control request timeout: ${subtype}`));
      }, timeoutMs);
    });
    try {
      await this.write({ type: "control_request", request_id: id, request });
      const response = await answer;
      if (response.subtype === "error") {
        throw new ControlRequestError(subtype, String(response.error ?? "Unknown error"));
      }
      return asObject(response.response);
    } finally {
      clearTimeout(timer);
      this.#pending.delete(id);
    }
  }

  // ------------------------------------------------------------------ requests from dcl

  async #handle(requestId: string, request: Json, signal: AbortSignal): Promise<void> {
    const subtype = request.subtype;
    let response: Json;
    try {
      let data: Json;
      if (subtype === "can_use_tool") data = await this.#canUseTool(request, signal);
      else if (subtype === "hook_callback") data = await this.#hookCallback(request, signal);
      else if (subtype === "mcp_message") data = await this.#mcpMessage(request);
      else if (subtype === "elicitation") data = await this.#elicitation(request, signal);
      else throw new Error(`Unsupported control request subtype: ${String(subtype)}`);
      response = { subtype: "success", request_id: requestId, response: data };
    } catch (e) {
      const message = e instanceof Error ? e.message || e.name : String(e);
      response = { subtype: "error", request_id: requestId, error: message };
    }
    if (signal.aborted) return; // dcl withdrew the request (or the session ended): no answer
    try {
      await this.write({ type: "control_response", response });
    } catch (e) {
      if (!(e instanceof DclError)) throw e; // the session ended: nobody to answer
    }
  }

  async #canUseTool(request: Json, signal: AbortSignal): Promise<Json> {
    const callback = this.options.canUseTool;
    if (callback === undefined) throw new Error("canUseTool callback is not provided");
    const input = asObject(request.input);
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    const result = await callback(String(request.tool_name ?? ""), input, {
      signal,
      suggestions: Array.isArray(request.permission_suggestions) ? (request.permission_suggestions as never) : undefined,
      blockedPath: str(request.blocked_path),
      decisionReason: str(request.decision_reason),
      toolUseID: String(request.tool_use_id ?? ""),
      agentID: str(request.agent_id),
      title: str(request.title),
      displayName: str(request.display_name),
      description: str(request.description),
    });
    return permissionWire(result, input, request.tool_use_id);
  }

  async #hookCallback(request: Json, signal: AbortSignal): Promise<Json> {
    const id = String(request.callback_id);
    const callback = this.#hooks.get(id);
    if (callback === undefined) throw new Error(`No hook callback found for ID: ${id}`);
    const toolUseId = typeof request.tool_use_id === "string" ? request.tool_use_id : undefined;
    const output = await callback(asObject(request.input) as never, toolUseId, { signal });
    return asObject(output);
  }

  async #mcpMessage(request: Json): Promise<Json> {
    const name = request.server_name;
    const message = asObject(request.message);
    if (typeof name !== "string" || request.message === undefined) throw new Error("Missing server_name or message for MCP request");
    const server = this.#mcp.get(name);
    let response: Json | null;
    if (server === undefined) {
      response = { jsonrpc: "2.0", id: message.id ?? null, error: { code: -32601, message: `Server '${name}' not found` } };
    } else {
      try {
        response = await server.handle(message);
      } catch (e) {
        response = { jsonrpc: "2.0", id: message.id ?? null, error: { code: -32603, message: e instanceof Error ? e.message : String(e) } };
      }
    }
    return { mcp_response: response ?? { jsonrpc: "2.0", result: {} } };
  }

  async #elicitation(request: Json, signal: AbortSignal): Promise<Json> {
    const callback = this.options.onElicitation;
    if (callback === undefined) return { action: "decline" };
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    const result = await callback(
      {
        serverName: String(request.mcp_server_name ?? request.server_name ?? ""),
        message: String(request.message ?? ""),
        mode: str(request.mode),
        url: str(request.url),
        elicitationId: str(request.elicitation_id),
        requestedSchema: request.requested_schema === undefined ? undefined : asObject(request.requested_schema),
      },
      { signal },
    );
    return asObject(result);
  }
}
