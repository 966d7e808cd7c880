package nexus.io.agent.sdk.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import nexus.io.agent.sdk.AgentConnectionException;
import nexus.io.agent.sdk.AgentException;
import nexus.io.agent.sdk.AgentOptions;
import nexus.io.agent.sdk.SessionClosedException;
import nexus.io.agent.sdk.TransportKind;
import nexus.io.agent.sdk.hook.HookMatcher;
import nexus.io.agent.sdk.json.Json;
import nexus.io.agent.sdk.json.JsonAccess;
import nexus.io.agent.sdk.mcp.McpServer;
import nexus.io.agent.sdk.mcp.McpTool;
import nexus.io.agent.sdk.transport.NativeBridge;

/**
 * An in-process session over dcl's Rust host. Correlation of requests both ways, their timeouts
 * and withdrawal, {@code initialize} and the JSON-RPC of in-JVM MCP servers all happen in Rust;
 * this class only turns events into calls of the user's functions and messages for the user's
 * stream. It owns no thread: {@link NativeHost}'s dispatcher feeds it.
 */
final class NativeSession extends Session {
  private static final Logger LOG = Logger.getLogger("nexus.io.agent.sdk");

  private final long handle;
  private volatile boolean closed;

  private NativeSession(AgentOptions options, long handle) {
    super(options, TransportKind.IN_PROCESS);
    this.handle = handle;
    this.sessionId = NativeHost.sessionId(handle);
  }

  /**
   * Opens a session in this JVM and sends {@code initialize}.
   *
   * @param options the options (checked already)
   * @return the running session
   */
  static NativeSession start(AgentOptions options) {
    if (!NativeBridge.isAvailable()) {
      throw new AgentConnectionException(
          "the in-process transport needs libdcl_java, which did not load: "
              + NativeBridge.loadError(),
          NativeBridge.loadError());
    }
    // No callback timeout of our own: dcl's hostTimeoutSecs withdraws a late callback.
    long h =
        NativeHost.open(
            OptionsMapper.sessionOptionsJson(options), 0, options.getControlRequestTimeoutMs());
    NativeSession s;
    try {
      s = new NativeSession(options, h);
    } catch (RuntimeException e) {
      NativeHost.free(h);
      throw e;
    }
    try {
      for (McpServer server : options.getMcpServers().values()) {
        NativeHost.addMcpServer(h, Json.write(spec(server)));
      }
      NativeHost.watch(h, s);
      long timeout = Math.max(options.getControlRequestTimeoutMs(), 60_000);
      s.serverInfo = Json.parseObject(NativeHost.initialize(h, Json.write(s.initSpec()), timeout));
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  /** What {@code initialize} declares: hooks as callback counts, in {@link #hooks} order. */
  private Map<String, Object> initSpec() {
    List<Object> list = new ArrayList<Object>();
    for (Map.Entry<String, List<HookMatcher>> e : options.getHooks().entrySet()) {
      for (HookMatcher m : e.getValue()) {
        Map<String, Object> hook = new LinkedHashMap<String, Object>();
        hook.put("event", e.getKey());
        hook.put("matcher", m.getMatcher());
        hook.put("callbacks", m.getHooks().size());
        hook.put("timeout", m.getTimeoutSeconds());
        list.add(hook);
      }
    }
    Map<String, Object> spec = new LinkedHashMap<String, Object>();
    spec.put("hooks", list);
    return spec;
  }

  private static Map<String, Object> spec(McpServer server) {
    List<Object> tools = new ArrayList<Object>();
    for (McpTool t : server.getTools()) {
      Map<String, Object> tool = new LinkedHashMap<String, Object>();
      tool.put("name", t.getName());
      tool.put("description", t.getDescription());
      tool.put("inputSchema", t.getInputSchema());
      tools.add(tool);
    }
    Map<String, Object> spec = new LinkedHashMap<String, Object>();
    spec.put("name", server.getName());
    spec.put("version", server.getVersion());
    spec.put("tools", tools);
    return spec;
  }

  // ------------------------------------------------------------------ events (dispatcher thread)

  /** One batch of {@code (kind, item)} pairs from {@link NativeHost#events}; null: freed. */
  @SuppressWarnings("unchecked")
  void take(Object[] events) {
    if (events == null) {
      end();
      return;
    }
    for (int i = 0; i + 1 < events.length; i += 2) {
      String kind = (String) events[i];
      Object item = events[i + 1];
      if ("message".equals(kind)) {
        Object msg = Json.parse((String) item);
        if (msg instanceof Map) {
          deliver((Map<String, Object>) msg);
        }
      } else if ("cancel".equals(kind)) {
        ((NativeCall) item).withdraw();
      } else if ("end".equals(kind)) {
        end();
      } else if (closed) {
        ((NativeCall) item).withdraw(); // raced with close(): nobody wants its answer
      } else {
        final NativeCall call = (NativeCall) item;
        CALLBACKS.execute(() -> run(call));
      }
    }
  }

  /** The dispatcher could not handle this session's events: it ends, with {@code t}. */
  void fail(Throwable t) {
    NativeHost.forget(handle);
    try {
      release();
    } finally {
      finish(t);
    }
  }

  private void end() {
    NativeHost.forget(handle);
    release();
    finish(null);
  }

  /** Frees the native session; interrupts the callbacks still running. */
  private void release() {
    Object[] running = NativeHost.free(handle);
    if (running != null) {
      for (Object call : running) {
        ((NativeCall) call).withdraw();
      }
    }
  }

  // ------------------------------------------------------------------ callbacks (pool threads)

  @SuppressWarnings("unchecked")
  private void run(NativeCall call) {
    if (!call.begin()) {
      return;
    }
    try {
      Map<String, Object> request = Json.parseObject(call.payload);
      Object answer;
      if ("can_use_tool".equals(call.kind)) {
        answer = canUseTool(request);
      } else if ("hook_callback".equals(call.kind)) {
        answer = hookCallback(request);
      } else if ("tool_call".equals(call.kind)) {
        McpServer server = options.getMcpServers().get(JsonAccess.string(request, "server"));
        if (server == null) {
          throw new IllegalStateException("no MCP server " + request.get("server"));
        }
        answer =
            server.callTool(
                JsonAccess.string(request, "tool"), JsonAccess.object(request, "arguments"));
      } else {
        throw new IllegalStateException("Unsupported control request subtype: " + call.kind);
      }
      NativeHost.respond(handle, call.id, Json.write(answer));
    } catch (InterruptedException e) {
      // dcl withdrew the request: no answer
    } catch (SessionClosedException e) {
      LOG.log(Level.FINE, "answer to " + call.kind + " not delivered: the session ended");
    } catch (Throwable e) {
      if (!call.isWithdrawn()) {
        try {
          NativeHost.respondError(handle, call.id, describe(e));
        } catch (SessionClosedException gone) {
          LOG.log(Level.FINE, "answer to " + call.kind + " not delivered: the session ended");
        }
      }
    } finally {
      call.end();
    }
  }

  // ------------------------------------------------------------------ input (user threads)

  private void live() {
    if (closed) {
      throw new SessionClosedException("the session is closed");
    }
  }

  @Override
  public void write(Map<String, Object> message) {
    live();
    String line = Json.write(message);
    // A full input queue is back-pressure, not an error: wait a little and offer again.
    for (long pause = 1; !NativeHost.send(handle, line); pause = Math.min(pause * 2, 50)) {
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SessionClosedException("interrupted while the session's input was full");
      }
      live();
    }
  }

  @Override
  public Map<String, Object> request(Map<String, Object> request, long timeoutMs) {
    live();
    if (isEnded()) {
      throw new SessionClosedException("the session has ended");
    }
    return Json.parseObject(NativeHost.request(handle, Json.write(request), timeoutMs));
  }

  @Override
  public void endInput() {
    if (!closed) {
      try {
        NativeHost.endInput(handle);
      } catch (SessionClosedException e) {
        // ended already
      }
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    NativeHost.forget(handle);
    try {
      release();
    } catch (AgentException e) {
      LOG.log(Level.FINE, "closing the native session failed", e);
    }
    finish(null);
  }

  /** @return requests from dcl still waiting for this side (tests) */
  int pendingCallbacks() {
    try {
      return NativeHost.pending(handle);
    } catch (SessionClosedException e) {
      return 0;
    }
  }
}
