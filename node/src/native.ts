/**
 * The addon (bindings/node, built by @napi-rs/cli into native/): loaded once, typed here.
 * Nothing else in the package touches it.
 */
import path from "node:path";

/** What one `recv` gave; no lines and not ended means the wait timed out. */
export interface NativeBatch {
  lines: string[];
  ended: boolean;
}

/** Why a session did not open (`code` is one of the `DCL_*` codes). */
export interface NativeOpenFailure {
  code: string;
  option?: string | null;
  message: string;
}

export interface NativeSession {
  readonly sessionId: string;
  /** `false`: the input queue is full; send the same line again later. */
  trySend(line: string): boolean;
  recv(max?: number | null, timeoutMs?: number | null): Promise<NativeBatch>;
  interrupt(): void;
  endInput(): void;
  close(): void;
}

/** One event of a `NativeHost`: a message (`kind` `message`, `payload` the line) or a
 * request from dcl to answer with `respond`. */
export interface NativeEvent {
  id: string;
  kind: string;
  payload: string;
}

/** How a control request ended: `response` (JSON text) or a coded failure. */
export interface NativeRequestOutcome {
  response?: string | null;
  code?: string | null;
  message?: string | null;
}

/** A session with the host side of the protocol done in Rust (`bindings/node/src/host.rs`). */
export interface NativeHost {
  readonly sessionId: string;
  addMcpServer(specJson: string): void;
  initializeRequest(specJson: string): string;
  request(requestJson: string, timeoutMs?: number | null): Promise<NativeRequestOutcome>;
  trySend(line: string): boolean;
  respond(id: string, resultJson: string): void;
  respondError(id: string, message: string): void;
  nextEvents(max?: number | null): Promise<{ events: NativeEvent[]; ended: boolean }>;
  withdrawn(id: string): Promise<string>;
  pendingCallbacks(): number;
  interrupt(): void;
  endInput(): void;
  close(): void;
}

/** The JSON-RPC of one in-process MCP server (the Rust host's). */
export interface NativeMcpServer {
  handle(messageJson: string): { reply?: string | null; tool?: string | null; arguments?: string | null; id?: string | null };
}

export interface NativeBinding {
  McpServer: {
    new (specJson: string): NativeMcpServer;
    toolResult(idJson: string, resultJson?: string | null, error?: string | null): string;
  };
  Host: abstract new (...args: never[]) => NativeHost;
  openHost(
    optionsJson: string,
    callbackTimeoutMs?: number | null,
    controlTimeoutMs?: number | null,
    cliPath?: string | null,
  ): NativeHost | NativeOpenFailure;
  Session: abstract new (...args: never[]) => NativeSession;
  open(optionsJson: string): NativeSession | NativeOpenFailure;
  openArgs(argv: string[], env: Record<string, string>, cwd?: string | null): NativeSession | NativeOpenFailure;
  versions(): { dcl: string; protocol: string };
  sessions(requestJson: string): Promise<string>;
  _panicForTest(place: string): Promise<void> | void;
}

let loaded: NativeBinding | undefined;

/** The addon; a missing build is a clear error naming the command that makes it. */
export function native(): NativeBinding {
  if (loaded === undefined) {
    const file = path.join(__dirname, "..", "..", "native", "binding.cjs");
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require(file) as NativeBinding;
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new Error(`@dcl/agent: the native addon is not built (${why}); run \`npm run build\` in node/`);
    }
  }
  return loaded;
}

export function isSession(value: NativeSession | NativeOpenFailure): value is NativeSession {
  return value instanceof native().Session;
}

export function isHost(value: NativeHost | NativeOpenFailure): value is NativeHost {
  return value instanceof native().Host;
}
