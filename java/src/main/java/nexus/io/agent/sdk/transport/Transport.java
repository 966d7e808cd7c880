package nexus.io.agent.sdk.transport;

import java.util.List;

/**
 * A line pipe to one dcl session: the {@link SubprocessTransport} under the SDK's pure-Java host,
 * or the raw JNI {@link NativeTransport} (the SDK's in-process sessions go through dcl's Rust
 * host instead, see {@code nexus.io.agent.sdk.internal.NativeSession}). Lines are NDJSON protocol lines without their
 * newline.
 */
public interface Transport {
  /**
   * Hands one line to the session.
   *
   * @param line a user message, control request or control response
   * @throws nexus.io.agent.sdk.SessionClosedException when the session has ended
   */
  void send(String line);

  /**
   * Waits for outbound lines.
   *
   * @param timeoutMs the longest wait (a transport may wait longer when its stream can be
   *     unblocked by {@link #close()} instead)
   * @return the lines that are ready; empty when the wait timed out; null once the session has
   *     ended
   */
  List<String> recv(long timeoutMs);

  /** No more input: queued turns finish, then {@link #recv} returns null. */
  void endInput();

  /** Stops the session now and releases it; idempotent. */
  void close();

  /** @return the session's id when the transport knows it up front, else null */
  String sessionId();

  /** @return what is known about how the session ended (exit code, stderr tail), or "" */
  String describe();
}
