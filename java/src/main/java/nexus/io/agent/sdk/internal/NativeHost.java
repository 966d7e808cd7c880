package nexus.io.agent.sdk.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import nexus.io.agent.sdk.transport.NativeBridge;

/**
 * The JNI entry points over dcl's Rust host ({@code bindings/java/src/host.rs}) and the one
 * dispatcher thread that serves every in-process session of this JVM.
 *
 * <p>Every session is armed on one native waker with its handle as key. The dispatcher blocks in
 * {@link #waitReady}, takes each ready session's events in one batch ({@link #events}, which
 * re-arms it) and hands them to the session; user callbacks then run on the callback pool, so a
 * slow one stalls no other session. An idle session holds no thread and no descriptor.
 */
final class NativeHost {
  private static final Logger LOG = Logger.getLogger("nexus.io.agent.sdk");
  private static final int BATCH = 256;
  /** Sessions by native handle (the dispatcher's routing; requests are never keyed here). */
  private static final Map<Long, NativeSession> SESSIONS =
      new ConcurrentHashMap<Long, NativeSession>();

  private static Thread dispatcher;

  static {
    NativeBridge.isAvailable(); // loads libdcl_java
  }

  private NativeHost() {}

  /** Routes {@code handle}'s events to {@code session} from now on. */
  static synchronized void watch(long handle, NativeSession session) {
    SESSIONS.put(handle, session);
    if (dispatcher == null) {
      dispatcher = new Thread(NativeHost::dispatch, "dcl-dispatch");
      dispatcher.setDaemon(true);
      dispatcher.start();
    }
    arm(handle);
  }

  static void forget(long handle) {
    SESSIONS.remove(handle);
  }

  /** @return how many sessions the dispatcher serves */
  static int watched() {
    return SESSIONS.size();
  }

  private static void dispatch() {
    while (true) {
      long[] ready;
      try {
        ready = waitReady(60_000);
      } catch (Throwable t) {
        LOG.log(Level.WARNING, "dcl dispatcher: waiting failed", t);
        continue;
      }
      for (long handle : ready) {
        NativeSession s = SESSIONS.get(handle);
        if (s == null) {
          continue; // closed meanwhile
        }
        try {
          s.take(events(handle, BATCH));
        } catch (Throwable t) {
          LOG.log(Level.WARNING, "dcl dispatcher: session " + handle + " failed", t);
          s.fail(t);
        }
      }
    }
  }

  static native long open(String optionsJson, long callbackTimeoutMs, long controlTimeoutMs);

  static native void addMcpServer(long handle, String specJson);

  static native String initialize(long handle, String initSpecJson, long timeoutMs);

  static native String request(long handle, String requestJson, long timeoutMs);

  static native boolean send(long handle, String line);

  static native boolean respond(long handle, String id, String resultJson);

  static native boolean respondError(long handle, String id, String message);

  static native void arm(long handle);

  static native long[] waitReady(long timeoutMs);

  static native Object[] events(long handle, int max);

  static native void interrupt(long handle);

  static native void endInput(long handle);

  static native void close(long handle);

  static native Object[] free(long handle);

  static native String sessionId(long handle);

  static native int pending(long handle);

}
