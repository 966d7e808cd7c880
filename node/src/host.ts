/**
 * The JavaScript end of dcl's Rust host (`dcl_bridge::host`, the addon's `Host`) for one
 * in-process session.
 *
 * The control protocol itself — request ids both ways, timeouts, `initialize`, the JSON-RPC
 * of in-process MCP servers — is done in Rust. What is left here is what only JavaScript can
 * do: call the user's functions. Events `{id, kind, payload}` are pulled when the thread's
 * waker names the session: messages go to a queue the user iterates; `can_use_tool`,
 * `hook_callback`, `tool_call` and `elicitation` each run in their own task and answer with `respond`, and the task's signal
 * aborts when the Rust host says the request was withdrawn (`withdrawn`). Control calls to
 * dcl (`initialize`, `interrupt`, `set_model`...) are promises settled by the host.
 */

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
import { isHost, native, type NativeEvent, type NativeHost, type NativeWaker } from "./native";
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

/** The one wake-up of this thread's sessions: the addon calls it once a burst of sessions
 * has events, and it runs each named session's reader. A session waiting for events holds
 * no promise, native task or threadsafe function of its own: a pending read made those
 * anew on every wake-up, in the middle of a burst of turns, and an idle session kept them
 * (memory the allocator could not give back after the burst). */
class SessionWaker {
  readonly native: NativeWaker;
  #readers = new Map<number, () => void>();
  #last = 0;

  constructor() {
    this.native = new (native().Waker)(() => this.#ready());
  }

  /** Registers a session's reader; its key for `host.arm`. */
  add(reader: () => void): number {
    do this.#last = (this.#last + 1) % 0x1_0000_0000;
    while (this.#readers.has(this.#last));
    // An open session keeps Node alive, as its pending read did.
    if (this.#readers.size === 0) this.native.hold(true);
    this.#readers.set(this.#last, reader);
    return this.#last;
  }

  remove(key: number): void {
    if (this.#readers.delete(key) && this.#readers.size === 0) this.native.hold(false);
  }

  #ready(): void {
    for (const key of this.native.takeReady()) this.#readers.get(key)?.();
  }
}

let sessionWaker: SessionWaker | undefined;

let lastServerInfo: string | undefined;

/** `text`, or the equal string the previous session kept (sessions opened with the same
 * options get the same `initialize` answer). */
function sharedText(text: string): string {
  if (text === lastServerInfo) return lastServerInfo;
  lastServerInfo = text;
  return text;
}

export class HostSession {
  readonly options: Options;
  #sdkInConfig: boolean;
  #native: NativeHost | undefined;
  #queue = new MessageQueue();
  /** This session's key in the thread's waker while it is read. */
  #key: number | undefined;
  #endWaiters: Array<() => void> = [];
  #running = new Set<AbortController>();
  #hooks: HookCallback[] = [];
  #mcp = new Map<string, SdkMcpServer>();
  #outbox: string[] = [];
  #outboxWaiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  #flushTimer: NodeJS.Timeout | undefined;
  #resultWaiters: Array<() => void> = [];
  #aborted = false;
  #onAbort = () => this.abort();
  /** The `initialize` answer as text: parsed when asked for, and one string for the
   * sessions that got the same answer (a server holding thousands of sessions would
   * otherwise keep a parsed copy, ~9 KB of objects, for each). */
  #serverInfoText: string | undefined;
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

  /** Opens the session, registers the in-process MCP servers, registers its reader with the
   * thread's waker and sends `initialize`. */
  async start(): Promise<void> {
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
    const timeout = Math.max(this.options.controlRequestTimeoutMs ?? 60_000, 60_000);
    const cliPath = this.options.cliPath ?? (process.env.DCL_CLI_PATH || undefined);
    const opened = native().openHost(JSON.stringify(json), null, timeout, cliPath ?? null);
    if (!isHost(opened)) throw openFailure(opened);
    this.#native = opened;
    for (const [name, server] of this.#mcp) {
      opened.addMcpServer(JSON.stringify({ ...server.spec(), name }));
    }
    signal?.addEventListener("abort", this.#onAbort, { once: true });
    const waker = (sessionWaker ??= new SessionWaker());
    this.#key = waker.add(() => this.#drain(opened, waker));
    opened.arm(waker.native, this.#key);
    const init = JSON.parse(opened.initializeRequest(JSON.stringify(this.#initSpec()))) as Json;
    this.#serverInfoText = sharedText(await this.#requestText(init, timeout));
  }

  /** The `initialize` answer (a fresh object each call). */
  serverInfo(): Json {
    if (this.#serverInfoText === undefined) throw new CLIConnectionError("the session has not been initialized");
    return asObject(JSON.parse(this.#serverInfoText));
  }

  /** What the Rust host builds `initialize` from: hooks as callback counts (numbered
   * `hook_<n>` in this order, the order of `#hooks`). */
  #initSpec(): Json {
    const hooks: Json[] = [];
    for (const [event, matchers] of Object.entries(this.options.hooks ?? {})) {
      for (const m of matchers ?? []) {
        const callbacks = m.hooks ?? [];
        this.#hooks.push(...callbacks);
        hooks.push({ event, matcher: m.matcher ?? null, callbacks: callbacks.length, timeout: m.timeout ?? null, onFailure: m.onFailure ?? null });
      }
    }
    const spec: Json = { hooks, sdkServersInMcpConfig: this.#sdkInConfig };
    if (this.options.agents) spec.agents = this.options.agents;
    if (this.options.agent !== undefined) spec.agent = this.options.agent;
    if (this.options.forwardSubagentText) spec.forwardSubagentText = true;
    if (this.options.agentProgressSummaries) spec.agentProgressSummaries = true;
    if (Array.isArray(this.options.skills)) spec.skills = [...this.options.skills];
    if (this.options.promptSuggestions) spec.promptSuggestions = true;
    return spec;
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

  /** Stops the session now (a running turn is cancelled) and waits for its reader to see the end. */
  async close(): Promise<void> {
    this.options.abortController?.signal.removeEventListener("abort", this.#onAbort);
    this.#native?.close();
    this.#abortRunning();
    if (this.#key !== undefined) await new Promise<void>((resolve) => this.#endWaiters.push(resolve));
    this.ended = true;
  }

  /** Stops the session without an error: the message stream just ends. */
  stop(): void {
    this.#native?.close();
    this.#abortRunning();
  }

  /** Aborted through `abortController`: the session stops and the reader sees `AbortError`. */
  abort(): void {
    this.#aborted = true;
    // As with the SDK's killed child: nothing after the abort reaches the reader.
    this.#queue.fail(new AbortError("Claude Code process aborted by user"));
    this.#native?.close();
    this.#abortRunning();
  }

  #abortRunning(): void {
    for (const c of this.#running) c.abort();
  }

  // ------------------------------------------------------------------ output

  /** Routes the session's next batch of events when the waker names it, then arms it again
   * (at once when more are waiting, so one busy session does not hold the thread). */
  #drain(host: NativeHost, waker: SessionWaker): void {
    const key = this.#key;
    if (key === undefined) return;
    let failure: unknown;
    try {
      const batch = host.tryEvents(256);
      if (batch === null) return host.arm(waker.native, key);
      for (const event of batch.events) this.#route(host, event);
      if (!batch.ended) return host.arm(waker.native, key);
    } catch (e) {
      failure = fromNative(e);
    }
    waker.remove(key);
    this.#key = undefined;
    this.ended = true;
    const gone = new CLIConnectionError("the session ended before answering");
    for (const w of this.#outboxWaiters.splice(0)) w.reject(gone);
    this.#outbox = [];
    this.#abortRunning();
    this.#wakeResults();
    if (this.#aborted && failure === undefined) failure = new AbortError("Claude Code process aborted by user");
    this.#queue.end(failure);
    for (const resolve of this.#endWaiters.splice(0)) resolve();
  }

  #route(host: NativeHost, event: NativeEvent): void {
    if (event.kind === "message") {
      let msg: unknown;
      try {
        msg = JSON.parse(event.payload);
      } catch {
        process.emitWarning(`dcl sent a line that is not JSON: ${event.payload.slice(0, 200)}`);
        return;
      }
      this.#message(asObject(msg));
      return;
    }
    // `cancel` events need nothing here: each running callback learns of its own
    // withdrawal from `withdrawn`.
    if (event.kind === "cancel" || event.kind === "control_response") return;
    const controller = new AbortController();
    this.#running.add(controller);
    host.withdrawn(event.id).then(
      (why) => {
        if (why !== "answered") controller.abort();
      },
      () => controller.abort(),
    );
    void this.#handle(host, event, controller.signal).finally(() => this.#running.delete(controller));
  }

  #message(msg: Json): void {
    if (msg.type === "result") {
      this.results += 1;
      this.lastErrorResult = msg.is_error ? msg : undefined;
      this.#wakeResults();
    } else {
      this.lastErrorResult = undefined;
    }
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
    const host = this.#native;
    if (host === undefined) return Promise.reject(new CLIConnectionError("Not connected"));
    if (this.#outbox.length === 0) {
      try {
        if (host.trySend(line)) return Promise.resolve();
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
    const host = this.#native;
    while (host !== undefined && this.#outbox.length) {
      let taken: boolean;
      try {
        taken = host.trySend(this.#outbox[0] as string);
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

  /** Sends a control request to dcl and returns the `response` payload; the Rust host
   * gives it its id and times it out. */
  async request(request: Json, timeoutMs = 60_000): Promise<Json> {
    return asObject(JSON.parse(await this.#requestText(request, timeoutMs)));
  }

  /** As [`request`], the `response` payload as dcl sent it. */
  async #requestText(request: Json, timeoutMs: number): Promise<string> {
    const subtype = String(request.subtype);
    const host = this.#native;
    if (host === undefined || this.ended) throw new CLIConnectionError(`the session has ended; cannot send ${subtype}`);
    // Lines queued before the request go first, as they would over a pipe.
    await this.#whenFlushed();
    const outcome = await host.request(JSON.stringify(request), timeoutMs);
    if (outcome.response != null) return outcome.response;
    const message = outcome.message ?? "Unknown error";
    if (outcome.code === "DCL_TIMEOUT") throw new ControlRequestError(subtype, `Control request timeout: ${subtype}`);
    if (outcome.code === "DCL_REFUSED") throw new ControlRequestError(subtype, message.replace(`${subtype}: `, ""));
    // A dcl child that refused its options: the error opening in process would have given.
    if (outcome.code === "DCL_INVALID_OPTIONS") throw openFailure({ code: outcome.code, message, option: null });
    throw new CLIConnectionError(message);
  }

  // ------------------------------------------------------------------ requests from dcl

  async #handle(host: NativeHost, event: NativeEvent, signal: AbortSignal): Promise<void> {
    let answer: string;
    try {
      const request = asObject(JSON.parse(event.payload));
      let data: Json;
      if (event.kind === "can_use_tool") data = await this.#canUseTool(request, signal);
      else if (event.kind === "hook_callback") data = await this.#hookCallback(request, signal);
      else if (event.kind === "tool_call") data = await this.#toolCall(request);
      else if (event.kind === "elicitation") data = await this.#elicitation(request, signal);
      else throw new Error(`Unsupported control request subtype: ${event.kind}`);
      answer = JSON.stringify(data);
    } catch (e) {
      if (signal.aborted) return; // withdrawn (dcl cancelled it, or it timed out): no answer
      this.#answer(() => host.respondError(event.id, e instanceof Error ? e.message || e.name : String(e)));
      return;
    }
    if (signal.aborted) return;
    this.#answer(() => host.respond(event.id, answer));
  }

  #answer(send: () => void): void {
    try {
      send();
    } catch (e) {
      // Withdrawn meanwhile, or the session ended: nobody waits for this answer.
      if (!(fromNative(e) instanceof DclError)) throw e;
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
    const index = request.callback_index;
    const callback = typeof index === "number" ? this.#hooks[index] : undefined;
    if (callback === undefined) throw new Error(`No hook callback found for ID: ${String(request.callback_id)}`);
    const toolUseId = typeof request.tool_use_id === "string" ? request.tool_use_id : undefined;
    const output = await callback(asObject(request.input) as never, toolUseId, { signal });
    return asObject(output);
  }

  async #toolCall(request: Json): Promise<Json> {
    const server = this.#mcp.get(String(request.server));
    if (server === undefined) throw new Error(`Server '${String(request.server)}' not found`);
    return (await server.callTool(String(request.tool ?? ""), request.arguments)) as Json;
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
