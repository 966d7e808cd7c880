package nexus.io.agent.sdk;

import java.util.Iterator;
import java.util.NoSuchElementException;
import nexus.io.agent.sdk.internal.Session;
import nexus.io.agent.sdk.internal.NativeCleaner;
import nexus.io.agent.sdk.message.Message;
import nexus.io.agent.sdk.message.ResultMessage;

/**
 * The messages of one query, as they arrive (the iterator form of streaming). Close it (or
 * iterate to the end) to release the session; one that is dropped unfinished is closed once it
 * is garbage.
 *
 * <pre>{@code
 * try (MessageStream stream = Agent.stream("hello", options)) {
 *   for (Message m : stream) {
 *     System.out.println(m);
 *   }
 * }
 * }</pre>
 *
 * <p>Unlike {@link Agent#query}, an error result is delivered as a message, not thrown.
 */
public final class MessageStream implements Iterator<Message>, Iterable<Message>, AutoCloseable {
  private final Session host;
  private final NativeCleaner.Cleanable cleanable;
  private final boolean endAfterResult;
  private Message next;
  private boolean done;

  MessageStream(Session host, boolean endAfterResult) {
    this.host = host;
    this.endAfterResult = endAfterResult;
    this.cleanable = NativeCleaner.register(this, host::close);
  }

  @Override
  public boolean hasNext() {
    if (next != null) {
      return true;
    }
    if (done) {
      return false;
    }
    try {
      next = host.next(-1);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    if (next == null) {
      close();
      return false;
    }
    if (next instanceof ResultMessage && endAfterResult) {
      host.endInput();
    }
    return true;
  }

  @Override
  public Message next() {
    if (!hasNext()) {
      throw new NoSuchElementException("the stream has ended");
    }
    Message m = next;
    next = null;
    return m;
  }

  /** @return this stream, for for-each loops (it can be iterated once) */
  @Override
  public Iterator<Message> iterator() {
    return this;
  }

  /** @return the session's id (null on the subprocess transport until the first message) */
  public String getSessionId() {
    return host.getSessionId();
  }

  /** Stops the session and releases it; idempotent. */
  @Override
  public void close() {
    done = true;
    cleanable.clean();
  }
}
