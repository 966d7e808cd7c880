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
  /** The ready events without waiting: `null` when none is. */
  tryEvents(max?: number | null): { events: NativeEvent[]; ended: boolean } | null;
  /** `key` comes out of `waker.takeReady()` once events wait (at once if they do). */
  arm(waker: NativeWaker, key: number): void;
  withdrawn(id: string): Promise<string>;
  pendingCallbacks(): number;
  interrupt(): void;
  endInput(): void;
  close(): void;
}

/** The one wake-up of a thread's sessions (`bindings/node/src/wake.rs`). */
export interface NativeWaker {
  takeReady(): number[];
  hold(on: boolean): void;
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
  Waker: new (onReady: () => void) => NativeWaker;
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
  closeSessionStores(): void;
  _panicForTest(place: string): Promise<void> | void;
}

let loaded: NativeBinding | undefined;

/**
 * The prebuilt package for a machine, in napi-rs's names: linux-x64-gnu, linux-arm64-musl,
 * darwin-arm64, win32-x64-gnu (dcl's Windows builds use mingw-w64, which loads into any Node;
 * scripts/dist-cross.sh says why).
 */
export function platformName(
  platform: string = process.platform,
  arch: string = process.arch,
  glibc: boolean = platform === "linux" && hasGlibc(),
): string {
  if (platform === "linux") return `linux-${arch}-${glibc ? "gnu" : "musl"}`;
  if (platform === "win32") return `win32-${arch}-gnu`;
  return `${platform}-${arch}`;
}

function hasGlibc(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return Boolean(report?.header?.glibcVersionRuntime);
}

/**
 * Loads the addon: on Windows the prebuilt package by name first, since native/binding.cjs
 * (napi-rs's loader) looks only for an `-msvc` build under the official, MSVC-built Node;
 * everywhere else, and for a source build, through binding.cjs.
 */
function load(file: string): NativeBinding {
  if (process.platform === "win32" && !process.env.NAPI_RS_NATIVE_LIBRARY_PATH) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require(`@dcl/agent-${platformName()}`) as NativeBinding;
    } catch {
      // not installed: a source build in native/, through binding.cjs
    }
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(file) as NativeBinding;
}

/**
 * The addon, loaded once. native/binding.cjs (generated by @napi-rs/cli) looks for
 * native/dcl-node.<platform>.node (a checkout's build, or the package's source fallback),
 * then the prebuilt `@dcl/agent-<platform>` optional dependency. A miss is a clear error
 * naming both ways to get one.
 */
export function native(): NativeBinding {
  if (loaded === undefined) {
    const file = path.join(__dirname, "..", "..", "native", "binding.cjs");
    try {
      loaded = load(file);
      const addon = loaded;
      // What sessions queued for a session store (`sessionStore`) reaches it before Node
      // exits, and their leases are given up for the next worker: a session's own close
      // may still be draining on another thread when the event loop runs dry.
      process.once("exit", () => addon.closeSessionStores());
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      const platform = platformName();
      throw new Error(
        `@dcl/agent: no native addon for ${platform} (${why}). Install the prebuilt package ` +
          `@dcl/agent-${platform} (an optional dependency: was it omitted?), or build from source: ` +
          "`npm install-scripts approve @dcl/agent && DCL_NODE_BUILD_FROM_SOURCE=1 npm rebuild @dcl/agent` (needs cargo); in a checkout, `npm run build` in node/",
      );
    }
  }
  return loaded;
}

/**
 * Path of the `dcl` executable shipped in the prebuilt `@dcl/agent-<platform>` package, for
 * `pathToClaudeCodeExecutable` (claude-agent-sdk) or a spawn adapter. `$DCL_CLI_PATH` wins.
 * Throws when neither exists (a source-built install has no executable).
 */
export function dclPath(): string {
  const explicit = process.env.DCL_CLI_PATH;
  if (explicit) return explicit;
  const platform = platformName();
  const exe = process.platform === "win32" ? "bin/dcl.exe" : "bin/dcl";
  try {
    return require.resolve(`@dcl/agent-${platform}/${exe}`);
  } catch {
    throw new Error(
      `@dcl/agent: no dcl executable for ${platform}: the prebuilt package @dcl/agent-${platform} ` +
        "is not installed; set DCL_CLI_PATH, or `cargo install --path cli` from the dcl repository",
    );
  }
}

export function isSession(value: NativeSession | NativeOpenFailure): value is NativeSession {
  return value instanceof native().Session;
}

export function isHost(value: NativeHost | NativeOpenFailure): value is NativeHost {
  return value instanceof native().Host;
}
