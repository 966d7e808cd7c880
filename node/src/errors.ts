/**
 * Errors thrown by @dcl/agent. `AbortError` is @anthropic-ai/claude-agent-sdk's class name
 * and meaning (the query was aborted through `abortController`); the rest name what
 * failed, all under `DclError`:
 *
 * - `CLIConnectionError`: the session could not be opened or is gone
 *   - `InvalidOptionsError`: the options were rejected (`option` names the culprit)
 *   - `SessionClosedError`: something was sent to a session that has ended
 * - `BadInputError`: a protocol line dcl could not use (the session goes on)
 * - `ProcessError` > `ResultError`: the run ended on an error `result`
 * - `ControlRequestError`: dcl answered a control request with an error
 * - `InternalError`: a failure inside dcl (a Rust panic arrives as one)
 */

export class AbortError extends Error {
  constructor(message = "Operation aborted") {
    super(message);
    this.name = "AbortError";
  }
}

export class DclError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class CLIConnectionError extends DclError {}

export class InvalidOptionsError extends CLIConnectionError {
  /** The option to blame (as dcl names it, camelCase), when one is. */
  readonly option: string | undefined;
  constructor(message: string, option?: string | null) {
    super(message);
    this.option = option ?? undefined;
  }
}

export class SessionClosedError extends CLIConnectionError {
  constructor(message = "the session is closed") {
    super(message);
  }
}

export class BadInputError extends DclError {}

export class InternalError extends DclError {}

export class ProcessError extends DclError {
  readonly exitCode: number | undefined;
  constructor(message: string, exitCode?: number) {
    super(exitCode === undefined ? message : `${message} (exit code: ${exitCode})`);
    this.exitCode = exitCode;
  }
}

/** The most telling text of an error `result`: its errors, its text, its subtype. */
export function errorResultText(data: Record<string, unknown>): string {
  const errors = Array.isArray(data.errors)
    ? data.errors.filter((e): e is string => typeof e === "string" && e.trim() !== "")
    : [];
  if (errors.length) return errors.join("; ");
  if (typeof data.result === "string" && data.result.trim()) return data.result.trim();
  if (typeof data.subtype === "string" && data.subtype !== "success") return data.subtype;
  if (data.api_error_status != null) return `API error (HTTP ${String(data.api_error_status)})`;
  return "unknown error";
}

/** The run ended on a `result` with `is_error: true`; thrown after it was yielded. */
export class ResultError extends ProcessError {
  readonly result: Record<string, unknown>;
  readonly subtype: string | undefined;
  /**
   * Why the session could not start (`result.startup_failure_reason`, the TS SDK's
   * `startupFailureReason`), e.g. `resume_target_not_found`; undefined for a run that started.
   */
  readonly startupFailureReason: string | undefined;
  constructor(result: Record<string, unknown>) {
    super(`dcl returned an error result: ${errorResultText(result)}`);
    this.result = result;
    this.subtype = typeof result.subtype === "string" ? result.subtype : undefined;
    this.startupFailureReason =
      typeof result.startup_failure_reason === "string" ? result.startup_failure_reason : undefined;
  }
}

export class ControlRequestError extends DclError {
  readonly subtype: string;
  constructor(subtype: string, message: string) {
    super(message);
    this.subtype = subtype;
  }
}

/** An error the addon threw (its `code` is `DCL_*`), as this package's class. */
export function fromNative(e: unknown): unknown {
  if (!(e instanceof Error)) return e;
  const code = (e as { code?: unknown }).code;
  switch (code) {
    case "DCL_BAD_INPUT":
      return new BadInputError(e.message);
    case "DCL_CLOSED":
      return new SessionClosedError(e.message);
    case "DCL_INVALID_OPTIONS":
      return new InvalidOptionsError(e.message);
    case "DCL_INTERNAL":
    case "DCL_BUSY":
      return new InternalError(e.message);
    default:
      // A Rust panic caught by the addon arrives as a plain Error.
      if (/panicked/.test(e.message)) return new InternalError(e.message);
      return e;
  }
}

/** `open`'s failure value as this package's class. */
export function openFailure(f: { code: string; option?: string | null; message: string }): DclError {
  if (f.code === "DCL_INVALID_OPTIONS") return new InvalidOptionsError(f.message, f.option);
  if (f.code === "DCL_CLOSED") return new SessionClosedError(f.message);
  return new InternalError(f.message);
}
