/**
 * `query({prompt, options})`: @anthropic-ai/claude-agent-sdk's entry point, in-process.
 * The returned `Query` is an `AsyncGenerator` of messages with the SDK's control methods.
 */
import { ResultError } from "./errors";
import { HostSession } from "./host";
import type { Options, PermissionMode } from "./options";
import type { McpServerStatus, ModelInfo, SDKMessage, SDKUserMessage, SlashCommand } from "./types";

type Json = Record<string, unknown>;

export interface Query extends AsyncGenerator<SDKMessage, void> {
  /** Stops the running turn; it ends with an `error_during_execution` result. */
  interrupt(): Promise<Json>;
  setPermissionMode(mode: PermissionMode): Promise<Json>;
  /** `undefined`: the default model. A running turn keeps its model. */
  setModel(model?: string): Promise<void>;
  /** `null` or 0 turns thinking off. */
  setMaxThinkingTokens(maxThinkingTokens: number | null): Promise<void>;
  rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<Json>;
  mcpServerStatus(): Promise<McpServerStatus[]>;
  getContextUsage(): Promise<Json>;
  supportedCommands(): Promise<SlashCommand[]>;
  supportedModels(): Promise<ModelInfo[]>;
  supportedAgents(): Promise<Json[]>;
  accountInfo(): Promise<Json>;
  initializationResult(): Promise<Json>;
  reconnectMcpServer(serverName: string): Promise<void>;
  toggleMcpServer(serverName: string, enabled: boolean): Promise<void>;
  stopTask(taskId: string): Promise<void>;
  /** More prompts for a query whose prompt is a stream. */
  streamInput(stream: AsyncIterable<SDKUserMessage>): Promise<void>;
  /** The session's id once it is open. */
  readonly sessionId: string | undefined;
  /** Stops the session now; no further messages. */
  close(): void;
}

function userMessage(text: string): Json {
  return { type: "user", session_id: "", message: { role: "user", content: text }, parent_tool_use_id: null };
}

class QueryImpl implements Query {
  readonly #host: HostSession;
  readonly #ready: Promise<void>;
  readonly #gen: AsyncGenerator<SDKMessage, void>;
  #written = 0;

  constructor(prompt: string | AsyncIterable<SDKUserMessage>, options: Options) {
    this.#host = new HostSession(options);
    this.#ready = this.#host.start();
    // Failures surface from the first `next()`; this keeps them from being "unhandled".
    this.#ready.catch(() => undefined);
    this.#gen = this.#run(prompt);
  }

  get sessionId(): string | undefined {
    return this.#host.sessionId;
  }

  async *#run(prompt: string | AsyncIterable<SDKUserMessage>): AsyncGenerator<SDKMessage, void> {
    try {
      await this.#ready;
      if (typeof prompt === "string") {
        await this.#host.write(userMessage(prompt));
        this.#written = 1;
        // As the SDK does with a string prompt: input stays open until the turn is over,
        // so control requests and callbacks can still be answered.
        void this.#host.waitForResults(1).then(() => this.#host.endInput());
      } else {
        void this.#feed(prompt, true);
      }
      for await (const message of this.#host.messages()) yield message;
      const last = this.#host.lastErrorResult;
      if (last !== undefined) throw new ResultError(last);
    } finally {
      await this.#host.close();
    }
  }

  async #feed(stream: AsyncIterable<SDKUserMessage>, endAfter: boolean): Promise<void> {
    try {
      for await (const message of stream) {
        if (this.#host.ended) break;
        await this.#host.write({ session_id: "", parent_tool_use_id: null, ...(message as unknown as Json) });
        this.#written += 1;
      }
    } catch (e) {
      process.emitWarning(`the prompt stream failed; ending input: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!endAfter) return;
    if (this.#written && this.#host.bidirectional) {
      // Callbacks must stay answerable until the last prompt's turn is over.
      await this.#host.waitForResults(this.#written);
    }
    this.#host.endInput();
  }

  // --------------------------------------------------------------- AsyncGenerator

  next(...args: [] | [unknown]): Promise<IteratorResult<SDKMessage, void>> {
    return this.#gen.next(...args);
  }

  return(value?: void | PromiseLike<void>): Promise<IteratorResult<SDKMessage, void>> {
    return this.#gen.return(value as void);
  }

  throw(e?: unknown): Promise<IteratorResult<SDKMessage, void>> {
    return this.#gen.throw(e);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#gen.return();
  }

  // --------------------------------------------------------------- control

  async #request(request: Json): Promise<Json> {
    await this.#ready;
    return this.#host.request(request, this.#host.options.controlRequestTimeoutMs ?? 60_000);
  }

  interrupt(): Promise<Json> {
    return this.#request({ subtype: "interrupt" });
  }

  setPermissionMode(mode: PermissionMode): Promise<Json> {
    return this.#request({ subtype: "set_permission_mode", mode });
  }

  async setModel(model?: string): Promise<void> {
    await this.#request({ subtype: "set_model", model: model ?? null });
  }

  async setMaxThinkingTokens(maxThinkingTokens: number | null): Promise<void> {
    await this.#request({ subtype: "set_max_thinking_tokens", max_thinking_tokens: maxThinkingTokens });
  }

  rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<Json> {
    const request: Json = { subtype: "rewind_files", user_message_id: userMessageId };
    if (options?.dryRun !== undefined) request.dry_run = options.dryRun;
    return this.#request(request);
  }

  async mcpServerStatus(): Promise<McpServerStatus[]> {
    const r = await this.#request({ subtype: "mcp_status" });
    return Array.isArray(r.mcpServers) ? (r.mcpServers as McpServerStatus[]) : [];
  }

  getContextUsage(): Promise<Json> {
    return this.#request({ subtype: "get_context_usage" });
  }

  async initializationResult(): Promise<Json> {
    await this.#ready;
    return this.#host.serverInfo();
  }

  async supportedCommands(): Promise<SlashCommand[]> {
    const info = await this.initializationResult();
    return Array.isArray(info.commands) ? (info.commands as SlashCommand[]) : [];
  }

  async supportedModels(): Promise<ModelInfo[]> {
    const info = await this.initializationResult();
    return Array.isArray(info.models) ? (info.models as ModelInfo[]) : [];
  }

  async supportedAgents(): Promise<Json[]> {
    const info = await this.initializationResult();
    return Array.isArray(info.agents) ? (info.agents as Json[]) : [];
  }

  async accountInfo(): Promise<Json> {
    const info = await this.initializationResult();
    return typeof info.account === "object" && info.account !== null ? (info.account as Json) : {};
  }

  async reconnectMcpServer(serverName: string): Promise<void> {
    await this.#request({ subtype: "mcp_reconnect", serverName });
  }

  async toggleMcpServer(serverName: string, enabled: boolean): Promise<void> {
    await this.#request({ subtype: "mcp_toggle", serverName, enabled });
  }

  async stopTask(taskId: string): Promise<void> {
    await this.#request({ subtype: "stop_task", task_id: taskId });
  }

  async streamInput(stream: AsyncIterable<SDKUserMessage>): Promise<void> {
    await this.#ready;
    await this.#feed(stream, false);
  }

  close(): void {
    this.#host.stop();
  }

  get [Symbol.toStringTag](): string {
    return "Query";
  }
}

/**
 * Runs a prompt in a new in-process session and yields its messages. `prompt` is a
 * string or an `AsyncIterable` of user messages (multi-turn); `options` are the SDK's.
 * After an error `result` has been yielded, `ResultError` is thrown; after
 * `abortController.abort()`, `AbortError`.
 */
export function query({ prompt, options = {} }: { prompt: string | AsyncIterable<SDKUserMessage>; options?: Options }): Query {
  return new QueryImpl(prompt, options);
}
