package nexus.io.agent.sdk.internal;

import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs a clean-up action once its owner is unreachable, or earlier through {@link
 * Cleanable#clean()}, and never twice. {@code java.lang.ref.Cleaner} does this from Java 9 on;
 * the SDK targets Java 8, so this is the same idea on a {@link PhantomReference} and one daemon
 * thread. The action must not refer to its owner (or the owner is never unreachable).
 */
public final class NativeCleaner {
  private static final Logger LOG = Logger.getLogger("nexus.io.agent.sdk");
  private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<Object>();
  /** Keeps the references themselves reachable until they run. */
  private static final Set<Ref> LIVE = Collections.newSetFromMap(new ConcurrentHashMap<Ref, Boolean>());

  static {
    Thread t = new Thread(NativeCleaner::drain, "dcl-cleaner");
    t.setDaemon(true);
    t.start();
  }

  private NativeCleaner() {}

  /** A registered action. */
  public interface Cleanable {
    /** Runs the action now unless it already ran; unregisters it. */
    void clean();
  }

  /**
   * @param owner the object whose unreachability triggers the action
   * @param action the clean-up, not referring to {@code owner}
   * @return a handle that runs the action early
   */
  public static Cleanable register(Object owner, Runnable action) {
    Ref r = new Ref(owner, action);
    LIVE.add(r);
    return r;
  }

  private static void drain() {
    while (true) {
      try {
        ((Ref) QUEUE.remove()).clean();
      } catch (InterruptedException e) {
        // a daemon: keep serving
      } catch (Throwable t) {
        LOG.log(Level.WARNING, "a dcl clean-up action failed", t);
      }
    }
  }

  private static final class Ref extends PhantomReference<Object> implements Cleanable {
    private final Runnable action;
    private final AtomicBoolean done = new AtomicBoolean();

    Ref(Object owner, Runnable action) {
      super(owner, QUEUE);
      this.action = action;
    }

    @Override
    public void clean() {
      if (done.compareAndSet(false, true)) {
        LIVE.remove(this);
        clear();
        action.run();
      }
    }
  }
}
