/**
 * Existing @anthropic-ai/claude-agent-sdk code, in-process: that SDK takes a
 * `spawnClaudeCodeProcess(options) => SpawnedProcess` option. `spawnInProcess` is one
 * that spawns nothing: it opens a dcl session from the argv the SDK built (read by the
 * `dcl` CLI's own flag parser, compiled into the addon), and gives the SDK a process-like
 * object whose stdin and stdout are the session's lines. The SDK's own `Query` still runs
 * the control protocol (canUseTool, hooks, SDK MCP servers), so behaviour is the SDK's:
 *
 *     import { query } from "@anthropic-ai/claude-agent-sdk";
 *     import { spawnInProcess } from "@dcl/agent";
 *     query({ prompt, options: { model: "mock-model", spawnClaudeCodeProcess: spawnInProcess } });
 */
import { EventEmitter } from "node:events";
import { Readable, Writable } from "node:stream";

import { fromNative, openFailure } from "./errors";
import { isSession, native, type NativeSession } from "./native";

/** What the SDK passes (its `SpawnOptions`). */
export interface SpawnOptions {
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
}

const BUSY_RETRY_MS = 2;

function isErrorResult(line: string): boolean {
  try {
    return (JSON.parse(line) as { is_error?: unknown }).is_error === true;
  } catch {
    return false;
  }
}

/** A session dressed as the child process the SDK expects (its `SpawnedProcess`). */
export class InProcessChild extends EventEmitter {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  killed = false;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly sessionId: string | undefined;
  #session: NativeSession | undefined;
  #lastError = false;

  constructor(options: SpawnOptions) {
    super();
    this.stdout = new Readable({ read() {} });
    this.stderr = new Readable({ read() {} });
    let partial = "";
    this.stdin = new Writable({
      write: (chunk: Buffer | string, _enc, done) => {
        const lines = (partial + chunk.toString()).split("\n");
        partial = lines.pop() ?? "";
        this.#sendAll(lines).then(() => done(), done);
      },
      final: (done) => {
        const rest = partial;
        partial = "";
        this.#sendAll([rest]).then(() => {
          this.#session?.endInput();
          done();
        }, done);
      },
    });
    // The SDK may write after a kill; those writes go nowhere, as on a dead pipe.
    this.stdin.on("error", () => undefined);

    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.env ?? {})) if (typeof v === "string") env[k] = v;
    let opened;
    try {
      opened = native().openArgs(options.args, env, options.cwd ?? null);
    } catch (e) {
      opened = { code: "DCL_INTERNAL", message: e instanceof Error ? e.message : String(e) };
    }
    if (!isSession(opened)) {
      const failure = openFailure(opened);
      this.stderr.push(`Error: ${failure.message}\n`);
      setImmediate(() => this.#exit(1, null));
      return;
    }
    this.#session = opened;
    this.sessionId = opened.sessionId;
    options.signal?.addEventListener("abort", () => this.kill("SIGTERM"), { once: true });
    void this.#pump(opened);
  }

  async #sendAll(lines: string[]): Promise<void> {
    for (const line of lines) {
      if (!line.trim() || this.#session === undefined || this.killed) continue;
      for (;;) {
        let taken: boolean;
        try {
          taken = this.#session.trySend(line);
        } catch (e) {
          const err = fromNative(e);
          // As the CLI does: a bad line is reported and the session goes on.
          this.stderr.push(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
          break;
        }
        if (taken) break;
        await new Promise((r) => setTimeout(r, BUSY_RETRY_MS));
      }
    }
  }

  async #pump(session: NativeSession): Promise<void> {
    try {
      for (;;) {
        const batch = await session.recv(256);
        for (const line of batch.lines) {
          if (line.startsWith('{"type":"result"')) this.#lastError = isErrorResult(line);
          this.stdout.push(`${line}\n`);
        }
        if (batch.ended) break;
      }
    } catch (e) {
      this.emit("error", fromNative(e));
    }
    // The CLI's exit code: 1 when the last result was an error.
    this.#exit(this.killed ? null : this.#lastError ? 1 : 0, this.killed ? this.signalCode : null);
  }

  #exit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exitCode = code;
    this.signalCode = signal;
    this.stdout.push(null);
    this.stderr.push(null);
    this.emit("exit", code, signal);
    this.emit("close", code, signal);
  }

  kill(signal: NodeJS.Signals = "SIGTERM"): boolean {
    if (this.killed || this.exitCode !== null) return false;
    this.killed = true;
    this.signalCode = signal;
    this.#session?.close();
    return true;
  }
}

/** A `spawnClaudeCodeProcess` that runs dcl in this process instead of a child. */
export function spawnInProcess(options: SpawnOptions): InProcessChild {
  return new InProcessChild(options);
}
