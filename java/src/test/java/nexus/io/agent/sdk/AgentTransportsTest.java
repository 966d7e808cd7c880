package nexus.io.agent.sdk;

import static nexus.io.agent.sdk.TestSupport.file;
import static nexus.io.agent.sdk.TestSupport.ofType;
import static nexus.io.agent.sdk.TestSupport.opts;
import static nexus.io.agent.sdk.TestSupport.toolResults;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import nexus.io.agent.sdk.hook.HookEvent;
import nexus.io.agent.sdk.hook.HookOutput;
import nexus.io.agent.sdk.mcp.McpServer;
import nexus.io.agent.sdk.mcp.McpTool;
import nexus.io.agent.sdk.mcp.McpToolResult;
import nexus.io.agent.sdk.message.AssistantMessage;
import nexus.io.agent.sdk.message.Message;
import nexus.io.agent.sdk.message.ResultMessage;
import nexus.io.agent.sdk.message.StreamEvent;
import nexus.io.agent.sdk.message.SystemMessage;
import nexus.io.agent.sdk.message.ToolResultBlock;
import nexus.io.agent.sdk.message.ToolUseBlock;
import nexus.io.agent.sdk.permission.PermissionResult;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The SDK's behaviour, the same over both transports. */
class AgentTransportsTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void oneShotQueryReturnsTheResult(TransportKind kind) {
    ResultMessage r = Agent.query("hi", opts(kind, dir));
    assertEquals("success", r.getSubtype());
    assertFalse(r.isError());
    assertEquals("Hello from the fake model.", r.getResult());
    assertNotNull(r.getSessionId());
    assertTrue(r.getNumTurns() >= 1);
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void streamingIteratorDeliversTypedMessagesInOrder(TransportKind kind) {
    List<Message> got = new ArrayList<Message>();
    try (MessageStream s = Agent.stream("hi", opts(kind, dir).includePartialMessages(true))) {
      for (Message m : s) {
        got.add(m);
      }
    }
    SystemMessage init = ofType(got, SystemMessage.class).get(0);
    assertEquals("init", init.getSubtype());
    assertEquals("mock-model", init.getData().get("model"));
    AssistantMessage a = ofType(got, AssistantMessage.class).get(0);
    assertEquals("Hello from the fake model.", a.getText());
    assertEquals("mock-model", a.getModel());
    StringBuilder deltas = new StringBuilder();
    for (StreamEvent e : ofType(got, StreamEvent.class)) {
      if (e.getTextDelta() != null) {
        deltas.append(e.getTextDelta());
      }
    }
    assertEquals("Hello from the fake model.", deltas.toString());
    assertTrue(got.get(got.size() - 1) instanceof ResultMessage, "the result comes last");
    assertEquals(1, ofType(got, ResultMessage.class).size());
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void streamingCallbackSeesEveryMessageBeforeTheResultReturns(TransportKind kind) {
    final List<String> types = new CopyOnWriteArrayList<String>();
    ResultMessage r =
        Agent.query("please FAKE_BASH", opts(kind, dir).allowedTools("Bash"), m -> types.add(m.getType()));
    assertTrue(types.contains("system") && types.contains("assistant") && types.contains("user"), types.toString());
    assertEquals("result", types.get(types.size() - 1));
    assertTrue(r.getResult().startsWith("Done. The tool result had"), r.getResult());
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void multiTurnClientKeepsOneSession(TransportKind kind) {
    try (AgentClient c = Agent.connect(opts(kind, dir))) {
      assertEquals(kind, c.getTransport());
      ResultMessage first = c.send("hi");
      ResultMessage second = c.send("hi again");
      assertEquals("Hello from the fake model.", first.getResult());
      assertEquals("Hello from the fake model.", second.getResult());
      assertEquals(first.getSessionId(), second.getSessionId());
      assertEquals(first.getSessionId(), c.getSessionId());
      c.query("and once more");
      int results = 0;
      for (Message m : c.receiveResponse()) {
        if (m instanceof ResultMessage) {
          results++;
        }
      }
      assertEquals(1, results);
      Map<String, Object> changed = c.setPermissionMode(PermissionMode.ACCEPT_EDITS);
      assertNotNull(changed);
    }
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void allowedWriteChangesTheFile(TransportKind kind) throws Exception {
    final List<String> asked = new CopyOnWriteArrayList<String>();
    AgentOptions o =
        opts(kind, dir)
            .canUseTool(
                (tool, input, ctx) -> {
                  asked.add(tool + ":" + input.get("file_path") + ":" + (ctx.getToolUseId() != null));
                  return PermissionResult.allow();
                });
    ResultMessage r = Agent.query("FAKE_WRITE out.txt", o);
    assertEquals(Collections.singletonList("Write:out.txt:true"), asked);
    File out = file(dir, "out.txt");
    assertTrue(out.exists(), "the allowed Write ran");
    assertEquals("hello\n", new String(Files.readAllBytes(out.toPath()), StandardCharsets.UTF_8));
    assertTrue(r.getPermissionDenials().isEmpty());
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void deniedWriteLeavesNoFileAndIsReported(TransportKind kind) {
    List<Message> got = new ArrayList<Message>();
    AgentOptions o =
        opts(kind, dir).canUseTool((tool, input, ctx) -> PermissionResult.deny("no writes today"));
    ResultMessage r = Agent.query("FAKE_WRITE out.txt", o, got::add);
    assertFalse(file(dir, "out.txt").exists(), "the denied Write must not run");
    ToolResultBlock block = toolResults(got).get(0);
    assertTrue(block.isError());
    assertTrue(block.getText().contains("no writes today"), block.getText());
    assertEquals(1, r.getPermissionDenials().size());
    assertEquals("Write", r.getPermissionDenials().get(0).get("tool_name"));
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void callbackThatThrowsDeniesTheCall(TransportKind kind) {
    AgentOptions o =
        opts(kind, dir)
            .canUseTool(
                (tool, input, ctx) -> {
                  throw new IllegalStateException("policy service down");
                });
    ResultMessage r = Agent.query("FAKE_WRITE out.txt", o);
    assertFalse(file(dir, "out.txt").exists());
    assertEquals(1, r.getPermissionDenials().size());
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void inJvmMcpToolIsCalledByTheModel(TransportKind kind) {
    final List<Map<String, Object>> calls = new CopyOnWriteArrayList<Map<String, Object>>();
    McpServer app =
        McpServer.create("app")
            .tool(
                new McpTool(
                    "server_time",
                    "The server's current time",
                    null,
                    args -> {
                      calls.add(args);
                      return McpToolResult.text("12:34 UTC");
                    }));
    List<Message> got = new ArrayList<Message>();
    ResultMessage r =
        Agent.query(
            "what time is it",
            opts(kind, dir).mcpServer(app).allowedTools("mcp__app__server_time"),
            got::add);
    assertEquals(1, calls.size());
    assertEquals("Tool said: 12:34 UTC", r.getResult());
    ToolUseBlock use = null;
    for (AssistantMessage a : ofType(got, AssistantMessage.class)) {
      for (Object b : a.getContent()) {
        if (b instanceof ToolUseBlock) {
          use = (ToolUseBlock) b;
        }
      }
    }
    assertNotNull(use);
    assertEquals("mcp__app__server_time", use.getName());
    @SuppressWarnings("unchecked")
    List<Object> tools = (List<Object>) ofType(got, SystemMessage.class).get(0).getData().get("tools");
    assertTrue(tools.contains("mcp__app__server_time"), String.valueOf(tools));
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void preToolUseHookBlocksAWrite(TransportKind kind) {
    final List<Map<String, Object>> seen = new CopyOnWriteArrayList<Map<String, Object>>();
    AgentOptions o =
        opts(kind, dir)
            .permissionMode(PermissionMode.BYPASS_PERMISSIONS)
            .hook(
                HookEvent.PRE_TOOL_USE,
                "Write",
                (input, toolUseId, ctx) -> {
                  seen.add(input);
                  return HookOutput.denyToolUse("writes are blocked by the guard");
                });
    List<Message> got = new ArrayList<Message>();
    Agent.query("FAKE_WRITE blocked.txt", o, got::add);
    assertFalse(file(dir, "blocked.txt").exists());
    assertEquals(1, seen.size());
    assertEquals("PreToolUse", seen.get(0).get("hook_event_name"));
    assertEquals("Write", seen.get(0).get("tool_name"));
    ToolResultBlock block = toolResults(got).get(0);
    assertTrue(block.isError() && block.getText().contains("writes are blocked by the guard"), block.getText());
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void interruptEndsTheRunningTurn(TransportKind kind) {
    try (AgentClient c = Agent.connect(opts(kind, dir).includePartialMessages(true))) {
      c.query("FAKE_SLOW");
      ResultMessage result = null;
      boolean interrupted = false;
      for (Message m : c.receiveResponse()) {
        if (!interrupted && m instanceof StreamEvent && ((StreamEvent) m).getTextDelta() != null) {
          c.interrupt();
          interrupted = true;
        }
        if (m instanceof ResultMessage) {
          result = (ResultMessage) m;
        }
      }
      assertTrue(interrupted);
      assertNotNull(result);
      assertEquals("error_during_execution", result.getSubtype());
      assertTrue(result.isError());
      // The session goes on after an interrupt.
      assertEquals("Hello from the fake model.", c.send("hi").getResult());
    }
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void errorResultIsThrownWithTheResult(TransportKind kind) {
    ResultErrorException e =
        assertThrows(ResultErrorException.class, () -> Agent.query("FAKE_ERR400", opts(kind, dir)));
    assertTrue(e.getResultMessage().isError());
    assertNotNull(e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void missingWorkingDirectoryIsAnInvalidOptionNamed(TransportKind kind) {
    AgentOptions o = opts(kind, dir).cwd(new File(TestSupport.real(dir), "nope").getPath());
    InvalidOptionsException e = assertThrows(InvalidOptionsException.class, () -> Agent.query("hi", o));
    assertEquals("cwd", e.getOption());
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void resumeIsRefusedAsNotSupportedYet(TransportKind kind) {
    AgentConnectionException e =
        assertThrows(AgentConnectionException.class, () -> Agent.query("hi", opts(kind, dir).resume("abc")));
    assertTrue(e.getMessage().contains("not supported yet"), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void sendingAfterCloseThrowsSessionClosed(TransportKind kind) {
    AgentClient c = Agent.connect(opts(kind, dir));
    c.close();
    c.close(); // idempotent
    assertThrows(SessionClosedException.class, () -> c.query("hi"));
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void unknownControlRequestIsAnException(TransportKind kind) {
    try (AgentClient c = Agent.connect(opts(kind, dir))) {
      ControlRequestException e =
          assertThrows(
              ControlRequestException.class,
              () -> c.controlRequest(Collections.<String, Object>singletonMap("subtype", "no_such_thing")));
      assertEquals("no_such_thing", e.getSubtype());
      assertEquals("Hello from the fake model.", c.send("hi").getResult(), "the session goes on");
    }
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void unknownExtraArgIsReportedAsAWarning(TransportKind kind) {
    // --betas is accepted for compatibility and not acted on, on both transports.
    try (AgentClient c = Agent.connect(opts(kind, dir).extraArg("betas", "x"))) {
      String warnings = String.valueOf(c.getWarnings());
      assertTrue(warnings.contains("--betas"), warnings);
    }
  }
  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void interruptWithdrawsAPendingPermissionPrompt(TransportKind kind) throws Exception {
    final java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
    final java.util.concurrent.CountDownLatch withdrawn = new java.util.concurrent.CountDownLatch(1);
    AgentOptions o =
        opts(kind, dir)
            .canUseTool(
                (tool, input, ctx) -> {
                  asked.countDown();
                  try {
                    Thread.sleep(120_000); // an answer that never comes in time
                  } catch (InterruptedException e) {
                    withdrawn.countDown(); // dcl sent control_cancel_request
                    throw e;
                  }
                  return PermissionResult.allow();
                });
    try (AgentClient c = Agent.connect(o)) {
      c.query("FAKE_WRITE late.txt");
      assertTrue(asked.await(60, java.util.concurrent.TimeUnit.SECONDS));
      c.interrupt();
      ResultMessage result = null;
      for (Message m : c.receiveResponse()) {
        if (m instanceof ResultMessage) {
          result = (ResultMessage) m;
        }
      }
      assertNotNull(result);
      assertEquals("error_during_execution", result.getSubtype());
      assertTrue(withdrawn.await(60, java.util.concurrent.TimeUnit.SECONDS), "the callback was interrupted");
      assertFalse(file(dir, "late.txt").exists());
    }
  }
}
