package nexus.io.agent.sdk.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import nexus.io.agent.sdk.AgentConnectionException;
import nexus.io.agent.sdk.AgentException;
import nexus.io.agent.sdk.AgentOptions;
import nexus.io.agent.sdk.AgentTimeoutException;
import nexus.io.agent.sdk.TransportKind;
import nexus.io.agent.sdk.hook.HookCallback;
import nexus.io.agent.sdk.hook.HookContext;
import nexus.io.agent.sdk.hook.HookMatcher;
import nexus.io.agent.sdk.json.JsonAccess;
import nexus.io.agent.sdk.message.Message;
import nexus.io.agent.sdk.message.Messages;
import nexus.io.agent.sdk.message.ResultMessage;
import nexus.io.agent.sdk.permission.CanUseTool;
import nexus.io.agent.sdk.permission.PermissionResult;
import nexus.io.agent.sdk.permission.ToolPermissionContext;
import nexus.io.agent.sdk.transport.NativeBridge;

/**
 * One session as the public API sees it, whatever the transport: the user's message stream and
 * the calls into the user's callbacks. How requests reach the callbacks and how answers go back
 * is the transport's: {@link NativeSession} (in-process, the host side in Rust) or {@link
 * HostSession} (the {@code dcl} subprocess, the host side in Java).
 */
public abstract class Session {
  private static final Object END = new Object();

  private static final AtomicInteger THREADS = new AtomicInteger();

  /** Callback threads: unbounded, so no callback waits for another to finish. */
  static final ExecutorService CALLBACKS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "dcl-callback-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
          });

  final AgentOptions options;
  /** Hook callbacks in declaration order: callback number n is {@code hook_n}. */
  final List<HookCallback> hooks = new ArrayList<HookCallback>();

  private final TransportKind kind;
  private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<Object>();
  private final Object resultLock = new Object();
  private int results;
  private volatile ResultMessage lastResult;
  private volatile boolean ended;
  private volatile Throwable failure;
  volatile String sessionId;
  volatile Map<String, Object> serverInfo = Collections.emptyMap();

  Session(AgentOptions options, TransportKind kind) {
    this.options = options;
    this.kind = kind;
    for (List<HookMatcher> matchers : options.getHooks().values()) {
      for (HookMatcher m : matchers) {
        hooks.addAll(m.getHooks());
      }
    }
  }

  /**
   * Which transport {@code options} resolve to.
   *
   * @param options the options
   * @return {@link TransportKind#IN_PROCESS} or {@link TransportKind#SUBPROCESS}
   */
  public static TransportKind resolve(AgentOptions options) {
    TransportKind k = options.getTransport();
    if (k == TransportKind.AUTO) {
      String forced = System.getProperty("dcl.transport");
      if (forced == null || forced.isEmpty()) {
        forced = System.getenv("DCL_JAVA_TRANSPORT");
      }
      k = TransportKind.parse(forced);
    }
    if (k == TransportKind.AUTO) {
      k = NativeBridge.isAvailable() ? TransportKind.IN_PROCESS : TransportKind.SUBPROCESS;
    }
    return k;
  }

  /**
   * Opens a session on the transport {@code options} resolve to and sends {@code initialize}.
   *
   * @param options the options
   * @return the running session
   * @throws AgentConnectionException when it cannot open (an {@link
   *     nexus.io.agent.sdk.InvalidOptionsException} for rejected options)
   */
  public static Session open(AgentOptions options) {
    OptionsMapper.check(options);
    return resolve(options) == TransportKind.IN_PROCESS
        ? NativeSession.start(options)
        : HostSession.start(options);
  }

  // ------------------------------------------------------------------ state

  /** @return the transport in use */
  public TransportKind getTransportKind() {
    return kind;
  }

  /** @return the session id (known up front in-process, from the first message otherwise) */
  public String getSessionId() {
    return sessionId;
  }

  /** @return dcl's answer to {@code initialize} */
  public Map<String, Object> getServerInfo() {
    return serverInfo;
  }

  /** @return warnings dcl gave about accepted but ignored options */
  public List<String> getWarnings() {
    List<String> out = new ArrayList<String>();
    for (Object w : JsonAccess.array(serverInfo, "warnings")) {
      out.add(String.valueOf(w));
    }
    return out;
  }

  /** @return whether dcl may ask this side anything (callbacks, hooks, in-JVM tools) */
  public boolean isBidirectional() {
    return options.getCanUseTool() != null
        || !options.getHooks().isEmpty()
        || !options.getMcpServers().isEmpty();
  }

  /** @return whether the message stream has ended */
  public boolean isEnded() {
    return ended;
  }

  /** @return the latest result, or null */
  public ResultMessage getLastResult() {
    return lastResult;
  }

  // ------------------------------------------------------------------ messages

  /** A message for the user's stream (control traffic never comes here). */
  void deliver(Map<String, Object> msg) {
    if (sessionId == null && JsonAccess.string(msg, "session_id") != null) {
      sessionId = JsonAccess.string(msg, "session_id");
    }
    if ("result".equals(JsonAccess.string(msg, "type"))) {
      lastResult = new ResultMessage(msg);
      synchronized (resultLock) {
        results++;
        resultLock.notifyAll();
      }
    }
    queue.add(msg);
  }

  /** The stream has ended ({@code error}: why reading failed, or null). */
  void finish(Throwable error) {
    if (error != null) {
      failure = error;
    }
    ended = true;
    queue.add(END);
    synchronized (resultLock) {
      resultLock.notifyAll();
    }
  }

  /**
   * The next message, skipping types not surfaced to users.
   *
   * @param timeoutMs the longest wait; negative waits as long as it takes
   * @return the message, or null once the session has ended
   * @throws AgentTimeoutException when the wait times out
   * @throws AgentConnectionException when reading failed
   */
  @SuppressWarnings("unchecked")
  public Message next(long timeoutMs) {
    long deadline = timeoutMs < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMs * 1_000_000L;
    while (true) {
      Object item;
      try {
        if (timeoutMs < 0) {
          item = queue.take();
        } else {
          long left = deadline - System.nanoTime();
          item = left <= 0 ? queue.poll() : queue.poll(left, TimeUnit.NANOSECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AgentException("interrupted while waiting for a message", e);
      }
      if (item == null) {
        throw new AgentTimeoutException("no message from the session within " + timeoutMs + " ms");
      }
      if (item == END) {
        queue.add(END); // later reads end at once too
        Throwable f = failure;
        if (f != null) {
          throw new AgentConnectionException("reading from the session failed: " + f, f);
        }
        return null;
      }
      Message m = Messages.parse((Map<String, Object>) item);
      if (m != null) {
        return m;
      }
    }
  }

  /**
   * Waits until {@code count} results have been read or the session ended.
   *
   * @param count how many results
   */
  public void waitForResults(int count) {
    synchronized (resultLock) {
      while (results < count && !ended) {
        try {
          resultLock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  // ------------------------------------------------------------------ input

  /**
   * Sends a user prompt.
   *
   * @param prompt the text
   * @param session the {@code session_id} field ({@code "default"} or {@code ""} mean this one)
   */
  public void sendUser(String prompt, String session) {
    Map<String, Object> message = new LinkedHashMap<String, Object>();
    message.put("role", "user");
    message.put("content", prompt);
    Map<String, Object> line = new LinkedHashMap<String, Object>();
    line.put("type", "user");
    line.put("message", message);
    line.put("parent_tool_use_id", null);
    line.put("session_id", session);
    write(line);
  }

  /**
   * Sends one protocol message.
   *
   * @param message the message
   * @throws nexus.io.agent.sdk.SessionClosedException when the session is closed
   */
  public abstract void write(Map<String, Object> message);

  /**
   * Sends a control request and waits for its answer.
   *
   * @param request the request ({@code subtype} and its fields)
   * @param timeoutMs the longest wait
   * @return the answer's {@code response} payload
   * @throws nexus.io.agent.sdk.ControlRequestException when dcl answers with an error or not in
   *     time
   */
  public abstract Map<String, Object> request(Map<String, Object> request, long timeoutMs);

  /** No more prompts: queued turns finish, then the message stream ends. */
  public abstract void endInput();

  /** Stops the session (a running turn is cancelled) and releases it; idempotent. */
  public abstract void close();

  // ------------------------------------------------------------------ the user's callbacks

  /** Runs the user's {@code canUseTool} for a {@code can_use_tool} request. */
  @SuppressWarnings("unchecked")
  Map<String, Object> canUseTool(Map<String, Object> request) throws Exception {
    CanUseTool cb = options.getCanUseTool();
    if (cb == null) {
      throw new IllegalStateException("canUseTool callback is not provided");
    }
    Map<String, Object> input = JsonAccess.object(request, "input");
    if (input == null) {
      input = new LinkedHashMap<String, Object>();
    }
    List<Map<String, Object>> suggestions = new ArrayList<Map<String, Object>>();
    for (Object s : JsonAccess.array(request, "permission_suggestions")) {
      if (s instanceof Map) {
        suggestions.add((Map<String, Object>) s);
      }
    }
    ToolPermissionContext ctx =
        new ToolPermissionContext(
            JsonAccess.string(request, "tool_use_id"),
            suggestions,
            JsonAccess.string(request, "blocked_path"),
            JsonAccess.string(request, "decision_reason"),
            JsonAccess.string(request, "agent_id"),
            Collections.unmodifiableMap(request));
    String tool = JsonAccess.string(request, "tool_name");
    PermissionResult r = cb.canUseTool(tool == null ? "" : tool, input, ctx);
    if (r == null) {
      throw new IllegalStateException(
          "canUseTool returned null; return PermissionResult.allow() or deny()");
    }
    return r.toWire(input);
  }

  /** Runs hook callback {@code hook_<n>} for a {@code hook_callback} request. */
  Map<String, Object> hookCallback(Map<String, Object> request) throws Exception {
    String id = JsonAccess.string(request, "callback_id");
    int index = -1;
    if (id != null && id.startsWith("hook_")) {
      try {
        index = Integer.parseInt(id.substring(5));
      } catch (NumberFormatException e) {
        index = -1;
      }
    }
    if (index < 0 || index >= hooks.size()) {
      throw new IllegalStateException("No hook callback found for ID: " + id);
    }
    Map<String, Object> input = JsonAccess.object(request, "input");
    Map<String, Object> out =
        hooks
            .get(index)
            .call(
                input != null ? input : new LinkedHashMap<String, Object>(),
                JsonAccess.string(request, "tool_use_id"),
                new HookContext(id, Collections.unmodifiableMap(request)));
    return out != null ? out : new LinkedHashMap<String, Object>();
  }

  static String describe(Throwable e) {
    return e.getMessage() != null ? e.getMessage() : e.toString();
  }
}
