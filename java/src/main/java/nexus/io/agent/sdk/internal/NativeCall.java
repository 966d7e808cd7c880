package nexus.io.agent.sdk.internal;

/**
 * One request from dcl for the user's code ({@code can_use_tool}, {@code hook_callback}, {@code
 * tool_call}, ...), made by the native host. The host keeps the object while the request is
 * pending and hands the same object back when dcl withdraws it or it times out, so the thread
 * running it is interrupted without any lookup on this side.
 */
final class NativeCall {
  final long handle;
  final String id;
  final String kind;
  final String payload;
  private Thread runner;
  private boolean withdrawn;

  /**
   * Called from native code only.
   *
   * @param handle the session's native handle
   * @param id the opaque id to answer with
   * @param kind the request's kind
   * @param payload its JSON payload
   */
  NativeCall(long handle, String id, String kind, String payload) {
    this.handle = handle;
    this.id = id;
    this.kind = kind;
    this.payload = payload;
  }

  /** @return false when withdrawn already: do not run */
  synchronized boolean begin() {
    if (withdrawn) {
      return false;
    }
    runner = Thread.currentThread();
    return true;
  }

  /** The work is over: no interrupt can reach this (pooled) thread any more. */
  synchronized void end() {
    runner = null;
    Thread.interrupted();
  }

  /** dcl no longer wants the answer: interrupt the work. */
  synchronized void withdraw() {
    withdrawn = true;
    if (runner != null) {
      runner.interrupt();
    }
  }

  synchronized boolean isWithdrawn() {
    return withdrawn;
  }
}
