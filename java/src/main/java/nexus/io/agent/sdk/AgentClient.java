package nexus.io.agent.sdk;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import nexus.io.agent.sdk.internal.Session;
import nexus.io.agent.sdk.internal.NativeCleaner;
import nexus.io.agent.sdk.message.Message;
import nexus.io.agent.sdk.message.ResultMessage;

/**
 * A conversation: prompts and follow-ups in one session, with interrupts and live settings.
 *
 * <pre>{@code
 * try (AgentClient client = Agent.connect(options)) {
 *   ResultMessage first = client.send("What is in src/?");
 *   client.query("And in tests/?");
 *   for (Message m : client.receiveResponse()) {
 *     System.out.println(m);
 *   }
 * }
 * }</pre>
 *
 * <p>Thread-safe for sending; read the messages from one thread at a time. A client that is
 * dropped without {@link #close()} is closed once it is garbage.
 */
public final class AgentClient implements AutoCloseable {
  private final AgentOptions options;
  private volatile Session host;
  private NativeCleaner.Cleanable cleanable;

  /** @param options the options (null: defaults) */
  public AgentClient(AgentOptions options) {
    this.options = options != null ? options : new AgentOptions();
  }

  /**
   * Opens the session and sends {@code initialize}.
   *
   * @return this
   * @throws AgentConnectionException when it cannot open
   */
  public synchronized AgentClient connect() {
    if (host != null) {
      throw new AgentConnectionException("Already connected");
    }
    Session h = Session.open(options);
    host = h;
    cleanable = NativeCleaner.register(this, h::close);
    return this;
  }

  private Session need() {
    Session h = host;
    if (h == null) {
      throw new AgentConnectionException("Not connected. Call connect() first.");
    }
    return h;
  }

  /**
   * Sends a prompt; read its messages with {@link #receiveResponse()}.
   *
   * @param prompt the prompt
   */
  public void query(String prompt) {
    need().sendUser(prompt, "default");
  }

  /**
   * Sends a prompt and waits for its result (the turn's other messages are read and dropped).
   *
   * @param prompt the prompt
   * @return the turn's result (an error result is returned, not thrown)
   */
  public ResultMessage send(String prompt) {
    query(prompt);
    ResultMessage result = null;
    for (Message m : receiveResponse()) {
      if (m instanceof ResultMessage) {
        result = (ResultMessage) m;
      }
    }
    if (result == null) {
      throw new AgentConnectionException("the session ended before the result");
    }
    return result;
  }

  /**
   * The messages of one turn, up to and including its {@link ResultMessage}.
   *
   * @return an iterable to walk once
   */
  public Iterable<Message> receiveResponse() {
    return () -> messages(true);
  }

  /**
   * Every message of the session, turn after turn, until it ends.
   *
   * @return an iterable to walk once
   */
  public Iterable<Message> receiveMessages() {
    return () -> messages(false);
  }

  /**
   * The next message.
   *
   * @param timeoutMs the longest wait (negative: as long as it takes)
   * @return the message, or null once the session has ended
   * @throws AgentTimeoutException when nothing arrives in time
   */
  public Message receive(long timeoutMs) {
    return need().next(timeoutMs);
  }

  private Iterator<Message> messages(final boolean oneTurn) {
    final Session h = need();
    return new Iterator<Message>() {
      private Message next;
      private boolean done;

      @Override
      public boolean hasNext() {
        if (next != null) {
          return true;
        }
        if (done) {
          return false;
        }
        next = h.next(-1);
        if (next == null) {
          done = true;
          return false;
        }
        if (oneTurn && next instanceof ResultMessage) {
          done = true;
        }
        return true;
      }

      @Override
      public Message next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        Message m = next;
        next = null;
        return m;
      }
    };
  }

  /**
   * Stops the running turn; its result is {@code error_during_execution}.
   *
   * @return dcl's answer
   */
  public Map<String, Object> interrupt() {
    return request("interrupt", null, null);
  }

  /**
   * @param mode the permission mode for the rest of the session
   * @return dcl's answer
   */
  public Map<String, Object> setPermissionMode(PermissionMode mode) {
    return request("set_permission_mode", "mode", mode.wireName());
  }

  /**
   * @param model the model for the following turns (null: the default)
   * @return dcl's answer
   */
  public Map<String, Object> setModel(String model) {
    return request("set_model", "model", model);
  }

  /** @return the MCP servers and their state */
  public Map<String, Object> mcpStatus() {
    return request("mcp_status", null, null);
  }

  /** @return how the context window is used */
  public Map<String, Object> getContextUsage() {
    return request("get_context_usage", null, null);
  }

  /**
   * Sends any control request.
   *
   * @param request the request, {@code subtype} first
   * @return dcl's answer
   * @throws ControlRequestException when dcl answers with an error
   */
  public Map<String, Object> controlRequest(Map<String, Object> request) {
    return need().request(request, options.getControlRequestTimeoutMs());
  }

  private Map<String, Object> request(String subtype, String key, Object value) {
    Map<String, Object> r = new LinkedHashMap<String, Object>();
    r.put("subtype", subtype);
    if (key != null) {
      r.put(key, value);
    }
    return controlRequest(r);
  }

  /** @return dcl's answer to {@code initialize} (commands, models, versions, warnings) */
  public Map<String, Object> getServerInfo() {
    return need().getServerInfo();
  }

  /** @return options dcl accepted but does not act on, as it reported them */
  public List<String> getWarnings() {
    Session h = host;
    return h == null ? new ArrayList<String>() : h.getWarnings();
  }

  /** @return the session id (on the subprocess transport: once the first message arrived) */
  public String getSessionId() {
    Session h = host;
    return h == null ? null : h.getSessionId();
  }

  /** @return the transport this client runs on (after {@link #connect()}) */
  public TransportKind getTransport() {
    return need().getTransportKind();
  }

  /** No more prompts: queued turns finish, then {@link #receiveMessages()} ends. */
  public void endInput() {
    need().endInput();
  }

  /** Stops the session (a running turn is cancelled) and releases it; idempotent. */
  @Override
  public synchronized void close() {
    if (cleanable != null) {
      cleanable.clean();
    }
  }
}
