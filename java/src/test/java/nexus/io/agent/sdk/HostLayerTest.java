package nexus.io.agent.sdk;

import static nexus.io.agent.sdk.TestSupport.file;
import static nexus.io.agent.sdk.TestSupport.opts;
import static nexus.io.agent.sdk.TestSupport.toolResults;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import nexus.io.agent.sdk.mcp.McpServer;
import nexus.io.agent.sdk.mcp.McpTool;
import nexus.io.agent.sdk.mcp.McpToolResult;
import nexus.io.agent.sdk.message.Message;
import nexus.io.agent.sdk.message.ResultMessage;
import nexus.io.agent.sdk.message.ToolResultBlock;
import nexus.io.agent.sdk.permission.PermissionResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The host layer behind both transports: withdrawn callbacks, host MCP tools, awaited control
 * calls; in process, the Rust host does the correlation and one dispatcher serves every session.
 */
class HostLayerTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void aCallbackThatNeverAnswersIsWithdrawnByDclAndNothingIsWritten(TransportKind kind)
      throws Exception {
    final CountDownLatch withdrawn = new CountDownLatch(1);
    AgentOptions o =
        opts(kind, dir)
            .hostTimeoutSeconds(0.5) // dcl sends control_cancel_request after this
            .canUseTool(
                (tool, input, ctx) -> {
                  try {
                    Thread.sleep(120_000); // never answers in time
                  } catch (InterruptedException e) {
                    withdrawn.countDown();
                  }
                  return PermissionResult.allow(); // a late answer: it must go nowhere
                });
    ResultMessage r;
    try (AgentClient c = Agent.connect(o)) {
      r = c.send("FAKE_WRITE late.txt");
      assertTrue(withdrawn.await(30, TimeUnit.SECONDS), "the callback was interrupted");
      assertEquals("Hello from the fake model.", c.send("hi").getResult(), "the session goes on");
    }
    assertFalse(file(dir, "late.txt").exists(), "nothing written after the withdrawal");
    assertEquals(1, r.getPermissionDenials().size(), String.valueOf(r.getPermissionDenials()));
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void itsTwinAnswersInTimeAndTheWriteHappens(TransportKind kind) throws Exception {
    final AtomicBoolean interrupted = new AtomicBoolean();
    AgentOptions o =
        opts(kind, dir)
            .hostTimeoutSeconds(30)
            .canUseTool(
                (tool, input, ctx) -> {
                  Thread.sleep(200);
                  interrupted.set(Thread.currentThread().isInterrupted());
                  return PermissionResult.allow();
                });
    ResultMessage r = Agent.query("FAKE_WRITE late.txt", o);
    assertFalse(interrupted.get());
    File out = file(dir, "late.txt");
    assertTrue(out.exists(), "the answered write ran");
    assertEquals("hello\n", new String(Files.readAllBytes(out.toPath()), StandardCharsets.UTF_8));
    assertTrue(r.getPermissionDenials().isEmpty());
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void aHostMcpToolIsCalledByTheModelAndItsSchemaIsEnforced(TransportKind kind) {
    final List<Map<String, Object>> calls = new CopyOnWriteArrayList<Map<String, Object>>();
    McpServer calc =
        McpServer.create("calc", "2.1.0")
            .tool(
                new McpTool(
                    "add",
                    "Adds two integers",
                    McpTool.schema("a", "integer", "b", "integer"),
                    args -> {
                      calls.add(args);
                      long sum = ((Number) args.get("a")).longValue() + ((Number) args.get("b")).longValue();
                      return McpToolResult.text("sum=" + sum);
                    }));
    List<Message> got = new ArrayList<Message>();
    AgentOptions o = opts(kind, dir).mcpServer(calc).allowedTools("mcp__calc__add");
    Agent.query("FAKE_TOOL mcp__calc__add {\"a\":2,\"b\":3}", o, got::add);
    assertEquals(1, calls.size());
    ToolResultBlock ok = toolResults(got).get(0);
    assertFalse(ok.isError(), ok.getText());
    assertTrue(ok.getText().contains("sum=5"), ok.getText());

    got.clear();
    Agent.query("FAKE_TOOL mcp__calc__add {\"a\":\"two\",\"b\":3}", o, got::add);
    assertEquals(1, calls.size(), "invalid arguments never reach the tool");
    ToolResultBlock bad = toolResults(got).get(0);
    assertTrue(bad.isError(), bad.getText());
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void awaitedControlCallsAnswer(TransportKind kind) {
    McpServer app =
        McpServer.create("app").tool(new McpTool("t", "", null, args -> McpToolResult.text("x")));
    try (AgentClient c = Agent.connect(opts(kind, dir).mcpServer(app))) {
      assertNotNull(c.setModel("mock-model"));
      Map<String, Object> status = c.mcpStatus();
      assertTrue(String.valueOf(status).contains("app"), String.valueOf(status));
      assertNotNull(c.interrupt(), "an interrupt with no turn running is answered too");
      assertEquals("Hello from the fake model.", c.send("hi").getResult());
    }
  }

  /** In process, sessions cost no thread: 150 open clients add no reader threads. */
  @Test
  void inProcessSessionsShareOneDispatcherAndOwnNoThread() throws Exception {
    int before = Thread.activeCount();
    List<AgentClient> clients = new ArrayList<AgentClient>();
    try {
      for (int i = 0; i < 150; i++) {
        Path own = Files.createDirectory(dir.resolve("s" + i));
        AgentClient c = Agent.connect(opts(TransportKind.IN_PROCESS, own));
        clients.add(c);
        c.query("hi");
      }
      for (AgentClient c : clients) {
        ResultMessage r = null;
        for (Message m : c.receiveResponse()) {
          if (m instanceof ResultMessage) {
            r = (ResultMessage) m;
          }
        }
        assertNotNull(r);
        assertEquals("Hello from the fake model.", r.getResult());
      }
      int readers = 0;
      int dispatchers = 0;
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        readers += t.getName().equals("dcl-reader") ? 1 : 0;
        dispatchers += t.getName().equals("dcl-dispatch") ? 1 : 0;
      }
      assertEquals(0, readers, "no reader thread per in-process session");
      assertEquals(1, dispatchers, "one dispatcher for the JVM");
      int grown = Thread.activeCount() - before;
      assertTrue(grown < 50, "150 idle sessions grew the JVM by " + grown + " threads");
    } finally {
      for (AgentClient c : clients) {
        c.close();
      }
    }
  }

  private static final Pattern BOOKKEEPING =
      Pattern.compile(
          "request_id|\"req_|Map<String,\\s*(CompletableFuture|Future|FutureTask|NativeCall)"
              + "|(pending|handlers|inflight|calls)\\.(put|get|remove)\\(");

  private static List<String> bookkeeping(String file) throws Exception {
    File base = new File(System.getProperty("basedir", "."), "src/main/java/nexus/io/agent/sdk/internal");
    String text = new String(Files.readAllBytes(new File(base, file).toPath()), StandardCharsets.UTF_8);
    List<String> hits = new ArrayList<String>();
    Matcher m = BOOKKEEPING.matcher(text);
    while (m.find()) {
      hits.add(m.group());
    }
    return hits;
  }

  /** The JNI path's Java keeps no request-id table and mints no ids: the Rust host does. */
  @Test
  void theJniPathKeepsNoRequestIdBookkeeping() throws Exception {
    for (String f : new String[] {"Session.java", "NativeSession.java", "NativeHost.java", "NativeCall.java"}) {
      assertEquals(new ArrayList<String>(), bookkeeping(f), f);
    }
    // The grep is able to fail: the pure-Java subprocess host does keep such tables.
    assertFalse(bookkeeping("HostSession.java").isEmpty());
  }
}
