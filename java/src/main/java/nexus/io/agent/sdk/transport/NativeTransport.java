package nexus.io.agent.sdk.transport;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import nexus.io.agent.sdk.AgentConnectionException;
import nexus.io.agent.sdk.SessionClosedException;

/**
 * dcl's core in this JVM as a raw line pipe over JNI. The SDK's in-process sessions do not use it
 * (they go through the Rust host: {@code nexus.io.agent.sdk.internal.NativeSession}); it stays for
 * code that speaks the protocol itself.
 */
public final class NativeTransport implements Transport {
  /** Lines one native read returns at most. */
  private static final int BATCH = 256;

  private final AtomicLong handle;
  private final String sessionId;
  private volatile boolean closed;

  /**
   * Opens a session.
   *
   * @param optionsJson dcl's session options
   * @throws nexus.io.agent.sdk.InvalidOptionsException when dcl rejects them
   */
  public NativeTransport(String optionsJson) {
    if (!NativeBridge.isAvailable()) {
      throw new AgentConnectionException(
          "the in-process transport needs libdcl_java, which did not load: "
              + NativeBridge.loadError(),
          NativeBridge.loadError());
    }
    long h = NativeBridge.open(optionsJson);
    this.handle = new AtomicLong(h);
    String id;
    try {
      id = NativeBridge.sessionId(h);
    } catch (RuntimeException e) {
      id = null;
    }
    this.sessionId = id;
  }

  private long live() {
    long h = handle.get();
    if (h == 0 || closed) {
      throw new SessionClosedException("the session is closed");
    }
    return h;
  }

  @Override
  public void send(String line) {
    long h = live();
    // A full input queue is back-pressure, not an error: wait a little and offer again.
    long pause = 1;
    while (!NativeBridge.send(h, line)) {
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SessionClosedException("interrupted while the session's input was full");
      }
      pause = Math.min(pause * 2, 50);
      h = live();
    }
  }

  @Override
  public List<String> recv(long timeoutMs) {
    if (closed) {
      return null;
    }
    long h = handle.get();
    if (h == 0) {
      return null;
    }
    String[] lines;
    try {
      lines = NativeBridge.recvBatch(h, BATCH, timeoutMs);
    } catch (SessionClosedException e) {
      return null; // freed by close() while this thread waited
    }
    if (lines == null) {
      return null;
    }
    return lines.length == 0 ? Collections.<String>emptyList() : Arrays.asList(lines);
  }

  /** Interrupts the running turn directly (the {@code interrupt} control request also works). */
  public void interrupt() {
    NativeBridge.interrupt(live());
  }

  @Override
  public void endInput() {
    long h = handle.get();
    if (h != 0 && !closed) {
      NativeBridge.endInput(h);
    }
  }

  @Override
  public void close() {
    closed = true;
    long h = handle.getAndSet(0);
    if (h != 0) {
      NativeBridge.free(h); // also closes the session; exactly once
    }
  }

  @Override
  public String sessionId() {
    return sessionId;
  }

  @Override
  public String describe() {
    return "";
  }
}
