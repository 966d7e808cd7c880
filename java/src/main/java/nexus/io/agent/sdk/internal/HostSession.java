package nexus.io.agent.sdk.internal;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import nexus.io.agent.sdk.AgentConnectionException;
import nexus.io.agent.sdk.AgentException;
import nexus.io.agent.sdk.AgentOptions;
import nexus.io.agent.sdk.AgentTimeoutException;
import nexus.io.agent.sdk.ControlRequestException;
import nexus.io.agent.sdk.SessionClosedException;
import nexus.io.agent.sdk.TransportKind;
import nexus.io.agent.sdk.hook.HookCallback;
import nexus.io.agent.sdk.hook.HookContext;
import nexus.io.agent.sdk.hook.HookMatcher;
import nexus.io.agent.sdk.json.Json;
import nexus.io.agent.sdk.json.JsonAccess;
import nexus.io.agent.sdk.json.JsonException;
import nexus.io.agent.sdk.mcp.McpServer;
import nexus.io.agent.sdk.message.Message;
import nexus.io.agent.sdk.message.Messages;
import nexus.io.agent.sdk.message.ResultMessage;
import nexus.io.agent.sdk.permission.CanUseTool;
import nexus.io.agent.sdk.permission.PermissionResult;
import nexus.io.agent.sdk.permission.ToolPermissionContext;
import nexus.io.agent.sdk.transport.NativeBridge;
import nexus.io.agent.sdk.transport.NativeTransport;
import nexus.io.agent.sdk.transport.SubprocessTransport;
import nexus.io.agent.sdk.transport.Transport;

/**
 * The host side of the control protocol over one session, whatever the transport.
 *
 * <p>One reader thread pulls every outbound line. Normal messages go to a queue the user
 * drains; control requests from dcl ({@code can_use_tool}, {@code hook_callback}, {@code
 * mcp_message}) each run on a pooled thread, which calls the user's function and answers with a
 * {@code control_response}, so a slow callback holds up only its own request; control
 * responses complete the requests this side made ({@code initialize}, {@code interrupt}, ...);
 * {@code control_cancel_request} interrupts the handler it names. Rust never calls into the
 * JVM: this is all pull.
 */
public final class HostSession {
  private static final Logger LOG = Logger.getLogger("nexus.io.agent.sdk");
  private static final Object END = new Object();
  // close() wakes a waiting read at once; the slice only bounds how long a missed wake-up could last.
  private static final long READ_SLICE_MS = 2_000;
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Callback threads: unbounded, so no callback waits for another to finish. */
  private static final ExecutorService CALLBACKS =
      Executors.newCachedThreadPool(
          new ThreadFactory() {
            private final AtomicInteger n = new AtomicInteger();

            @Override
            public Thread newThread(Runnable r) {
              Thread t = new Thread(r, "dcl-callback-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            }
          });

  private final AgentOptions options;
  private final TransportKind kind;
  private final Transport transport;
  private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<Object>();
  private final Map<String, CompletableFuture<Map<String, Object>>> pending =
      new ConcurrentHashMap<String, CompletableFuture<Map<String, Object>>>();
  private final Map<String, Future<?>> handlers = new ConcurrentHashMap<String, Future<?>>();
  private final Map<String, HookCallback> hooks = new LinkedHashMap<String, HookCallback>();
  private final AtomicLong counter = new AtomicLong();
  private final Object resultLock = new Object();
  private int results;
  private volatile ResultMessage lastResult;
  private volatile boolean ended;
  private volatile boolean closed;
  private volatile Throwable failure;
  private volatile String sessionId;
  private Map<String, Object> serverInfo = Collections.emptyMap();
  private Thread reader;

  private HostSession(AgentOptions options, TransportKind kind, Transport transport) {
    this.options = options;
    this.kind = kind;
    this.transport = transport;
    this.sessionId = transport.sessionId();
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
   * Opens a session, starts its reader and sends {@code initialize}.
   *
   * @param options the options
   * @return the running session
   * @throws AgentConnectionException when it cannot open (an {@link
   *     nexus.io.agent.sdk.InvalidOptionsException} for rejected options)
   */
  public static HostSession open(AgentOptions options) {
    OptionsMapper.check(options);
    TransportKind kind = resolve(options);
    Transport t =
        kind == TransportKind.IN_PROCESS
            ? new NativeTransport(OptionsMapper.sessionOptionsJson(options))
            : new SubprocessTransport(
                OptionsMapper.argv(options),
                OptionsMapper.environment(options),
                OptionsMapper.absoluteCwd(options));
    HostSession s = new HostSession(options, kind, t);
    try {
      s.start();
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  private void start() {
    reader = new Thread(this::readLoop, "dcl-reader");
    reader.setDaemon(true);
    reader.start();
    long timeout = Math.max(options.getControlRequestTimeoutMs(), 60_000);
    serverInfo = request(initializeRequest(), timeout);
  }

  private Map<String, Object> initializeRequest() {
    Map<String, Object> hookConfig = new LinkedHashMap<String, Object>();
    for (Map.Entry<String, List<HookMatcher>> e : options.getHooks().entrySet()) {
      List<Object> entries = new ArrayList<Object>();
      for (HookMatcher m : e.getValue()) {
        List<Object> ids = new ArrayList<Object>();
        for (HookCallback cb : m.getHooks()) {
          String id = "hook_" + hooks.size();
          hooks.put(id, cb);
          ids.add(id);
        }
        Map<String, Object> entry = new LinkedHashMap<String, Object>();
        entry.put("matcher", m.getMatcher());
        entry.put("hookCallbackIds", ids);
        if (m.getTimeoutSeconds() != null) {
          entry.put("timeout", m.getTimeoutSeconds());
        }
        entries.add(entry);
      }
      if (!entries.isEmpty()) {
        hookConfig.put(e.getKey(), entries);
      }
    }
    Map<String, Object> request = new LinkedHashMap<String, Object>();
    request.put("subtype", "initialize");
    request.put("hooks", hookConfig.isEmpty() ? null : hookConfig);
    if (!options.getMcpServers().isEmpty()) {
      request.put("sdkMcpServers", new ArrayList<String>(options.getMcpServers().keySet()));
    }
    return request;
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

  // ------------------------------------------------------------------ output

  private void readLoop() {
    try {
      while (!closed) {
        List<String> lines = transport.recv(READ_SLICE_MS);
        if (lines == null) {
          break;
        }
        for (String line : lines) {
          Map<String, Object> msg;
          try {
            msg = Json.parseObject(line);
          } catch (JsonException e) {
            LOG.warning("dcl sent a line that is not a JSON object: " + abbreviate(line));
            continue;
          }
          route(msg);
        }
      }
    } catch (Throwable t) {
      failure = t;
    } finally {
      ended = true;
      AgentConnectionException gone =
          new AgentConnectionException("the session ended before answering" + transport.describe());
      for (CompletableFuture<Map<String, Object>> f : pending.values()) {
        f.completeExceptionally(gone);
      }
      queue.add(END);
      synchronized (resultLock) {
        resultLock.notifyAll();
      }
    }
  }

  private void route(Map<String, Object> msg) {
    String type = JsonAccess.string(msg, "type");
    if ("control_response".equals(type)) {
      Map<String, Object> response = JsonAccess.object(msg, "response");
      CompletableFuture<Map<String, Object>> f =
          pending.get(String.valueOf(JsonAccess.string(response, "request_id")));
      if (f != null) {
        f.complete(response);
      }
      return;
    }
    if ("control_request".equals(type)) {
      final String rid = String.valueOf(msg.get("request_id"));
      Map<String, Object> r = JsonAccess.object(msg, "request");
      final Map<String, Object> request = r != null ? r : new LinkedHashMap<String, Object>();
      // Registered before it can run, so its own clean-up always finds it.
      FutureTask<Void> task = new FutureTask<Void>(() -> handle(rid, request), null);
      handlers.put(rid, task);
      CALLBACKS.execute(task);
      return;
    }
    if ("control_cancel_request".equals(type)) {
      Future<?> f = handlers.remove(String.valueOf(msg.get("request_id")));
      if (f != null) {
        f.cancel(true);
      }
      return;
    }
    if ("system".equals(type)
        && "session_state_changed".equals(JsonAccess.string(msg, "subtype"))
        && JsonAccess.bool(msg, "sdk_host_only", false)) {
      return;
    }
    if (sessionId == null && JsonAccess.string(msg, "session_id") != null) {
      sessionId = JsonAccess.string(msg, "session_id");
    }
    if ("result".equals(type)) {
      lastResult = new ResultMessage(msg);
      synchronized (resultLock) {
        results++;
        resultLock.notifyAll();
      }
    }
    queue.add(msg);
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
        if (failure != null) {
          throw new AgentConnectionException("reading from the session failed: " + failure, failure);
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
   */
  public void write(Map<String, Object> message) {
    if (closed) {
      throw new SessionClosedException("the session is closed");
    }
    transport.send(Json.write(message));
  }

  /**
   * Sends a control request and waits for its answer.
   *
   * @param request the request ({@code subtype} and its fields)
   * @param timeoutMs the longest wait
   * @return the answer's {@code response} payload
   * @throws ControlRequestException when dcl answers with an error or not in time
   */
  public Map<String, Object> request(Map<String, Object> request, long timeoutMs) {
    String subtype = String.valueOf(request.get("subtype"));
    String rid = "req_" + counter.incrementAndGet() + "_" + Integer.toHexString(RANDOM.nextInt());
    CompletableFuture<Map<String, Object>> f = new CompletableFuture<Map<String, Object>>();
    pending.put(rid, f);
    Map<String, Object> answer;
    try {
      if (ended) {
        throw new SessionClosedException("the session has ended" + transport.describe());
      }
      Map<String, Object> line = new LinkedHashMap<String, Object>();
      line.put("type", "control_request");
      line.put("request_id", rid);
      line.put("request", request);
      write(line);
      answer = f.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new ControlRequestException(subtype, "Control request timeout");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof AgentException) {
        throw (AgentException) c;
      }
      throw new AgentConnectionException(String.valueOf(c), c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AgentException("interrupted while waiting for " + subtype, e);
    } finally {
      pending.remove(rid);
    }
    if ("error".equals(JsonAccess.string(answer, "subtype"))) {
      String error = JsonAccess.string(answer, "error");
      throw new ControlRequestException(subtype, error != null ? error : "Unknown error");
    }
    Map<String, Object> payload = JsonAccess.object(answer, "response");
    return payload != null ? payload : new LinkedHashMap<String, Object>();
  }

  /** No more prompts: queued turns finish, then the message stream ends. */
  public void endInput() {
    if (!closed) {
      transport.endInput();
    }
  }

  /** Stops the session (a running turn is cancelled) and releases it; idempotent. */
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Future<?> f : handlers.values()) {
      f.cancel(true);
    }
    transport.close();
    Thread r = reader;
    if (r != null && r != Thread.currentThread()) {
      try {
        r.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // ------------------------------------------------------------------ requests from dcl

  private void handle(String rid, Map<String, Object> request) {
    String subtype = JsonAccess.string(request, "subtype");
    Map<String, Object> response = new LinkedHashMap<String, Object>();
    try {
      Map<String, Object> data;
      if ("can_use_tool".equals(subtype)) {
        data = canUseTool(request);
      } else if ("hook_callback".equals(subtype)) {
        data = hookCallback(request);
      } else if ("mcp_message".equals(subtype)) {
        data = mcpMessage(request);
      } else {
        throw new IllegalStateException("Unsupported control request subtype: " + subtype);
      }
      response.put("subtype", "success");
      response.put("request_id", rid);
      response.put("response", data);
    } catch (InterruptedException e) {
      return; // dcl withdrew the request: no answer
    } catch (Throwable e) {
      if (Thread.currentThread().isInterrupted() && !handlers.containsKey(rid)) {
        return; // cancelled while failing
      }
      response.put("subtype", "error");
      response.put("request_id", rid);
      response.put("error", e.getMessage() != null ? e.getMessage() : e.toString());
    } finally {
      handlers.remove(rid);
    }
    Map<String, Object> line = new LinkedHashMap<String, Object>();
    line.put("type", "control_response");
    line.put("response", response);
    try {
      write(line);
    } catch (AgentException e) {
      LOG.log(Level.FINE, "answer to " + subtype + " " + rid + " not delivered: the session ended");
    }
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> canUseTool(Map<String, Object> request) throws Exception {
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
      throw new IllegalStateException("canUseTool returned null; return PermissionResult.allow() or deny()");
    }
    return r.toWire(input);
  }

  private Map<String, Object> hookCallback(Map<String, Object> request) throws Exception {
    String id = JsonAccess.string(request, "callback_id");
    HookCallback cb = id == null ? null : hooks.get(id);
    if (cb == null) {
      throw new IllegalStateException("No hook callback found for ID: " + id);
    }
    Map<String, Object> input = JsonAccess.object(request, "input");
    Map<String, Object> out =
        cb.call(
            input != null ? input : new LinkedHashMap<String, Object>(),
            JsonAccess.string(request, "tool_use_id"),
            new HookContext(id, Collections.unmodifiableMap(request)));
    return out != null ? out : new LinkedHashMap<String, Object>();
  }

  private Map<String, Object> mcpMessage(Map<String, Object> request) {
    String name = JsonAccess.string(request, "server_name");
    Map<String, Object> message = JsonAccess.object(request, "message");
    if (name == null || message == null) {
      throw new IllegalArgumentException("Missing server_name or message for MCP request");
    }
    McpServer server = options.getMcpServers().get(name);
    Map<String, Object> response;
    if (server == null) {
      response = rpcError(message.get("id"), -32601, "Server '" + name + "' not found");
    } else {
      try {
        response = server.handle(message);
      } catch (RuntimeException e) {
        response = rpcError(message.get("id"), -32603, String.valueOf(e.getMessage()));
      }
    }
    if (response == null) { // a notification: acknowledged all the same
      response = new LinkedHashMap<String, Object>();
      response.put("jsonrpc", "2.0");
      response.put("result", new LinkedHashMap<String, Object>());
    }
    return Collections.<String, Object>singletonMap("mcp_response", response);
  }

  private static Map<String, Object> rpcError(Object id, int code, String message) {
    Map<String, Object> error = new LinkedHashMap<String, Object>();
    error.put("code", code);
    error.put("message", message);
    Map<String, Object> out = new LinkedHashMap<String, Object>();
    out.put("jsonrpc", "2.0");
    out.put("id", id);
    out.put("error", error);
    return out;
  }

  private static String abbreviate(String s) {
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }
}
