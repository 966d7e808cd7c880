package nexus.io.agent.sdk.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import nexus.io.agent.sdk.AgentOptions;
import nexus.io.agent.sdk.InvalidOptionsException;
import nexus.io.agent.sdk.generated.SessionOptionKeys;
import nexus.io.agent.sdk.PermissionMode;
import nexus.io.agent.sdk.json.Json;
import nexus.io.agent.sdk.permission.PermissionResult;
import org.junit.jupiter.api.Test;

class OptionsMapperTest {
  private static AgentOptions sample() {
    return new AgentOptions()
        .cliPath("/opt/dcl")
        .model("deepseek-flash")
        .permissionMode(PermissionMode.ACCEPT_EDITS)
        .canUseTool((t, i, c) -> PermissionResult.allow())
        .allowedTools("Read", "Bash(git log:*,x)")
        .disallowedTools("WebFetch")
        .maxTurns(3)
        .extraArg("api-format", "anthropic")
        .extraArg("data-dir", "/path/to/data")
        .extraArg("--replay-user-messages", null);
  }

  @Test
  void extraArgsBecomeFlagsAfterTheModelledOnes() {
    List<String> argv = OptionsMapper.argv(sample());
    assertEquals("/opt/dcl", argv.get(0));
    String joined = String.join(" ", argv);
    assertTrue(joined.startsWith("/opt/dcl --input-format stream-json --output-format stream-json"), joined);
    assertTrue(joined.contains("--model deepseek-flash"), joined);
    assertTrue(joined.contains("--permission-mode acceptEdits"), joined);
    assertTrue(joined.contains("--permission-prompt-tool stdio"), joined);
    assertTrue(joined.contains("--allowed-tools Read --allowed-tools Bash(git log:*,x)"), joined);
    assertTrue(joined.contains("--max-turns 3"), joined);
    assertTrue(joined.endsWith("--api-format anthropic --data-dir /path/to/data --replay-user-messages"), joined);
  }

  @Test
  void inProcessKnownExtraArgsApplyAndUnknownOnesAreReported() {
    Map<String, Object> o = Json.parseObject(OptionsMapper.sessionOptionsJson(sample()));
    assertEquals("anthropic", o.get("apiFormat"));
    assertEquals(Boolean.TRUE, o.get("replayUserMessages"));
    assertEquals(Arrays.asList("--data-dir"), o.get("ignoredFlags"));
    assertEquals("stdio", o.get("permissionPromptTool"));
    assertEquals(Arrays.asList("Read", "Bash(git log:*,x)"), o.get("allowedTools"));
    assertEquals(3L, o.get("maxTurns"));
    assertFalse(o.containsKey("systemPrompt"), "unset means dcl's default, as for the CLI");
  }

  @Test
  void inProcessKeysAreAllKeysOfTheEngineSchema() {
    AgentOptions every =
        sample()
            .fallbackModel("other")
            .systemPrompt("be brief")
            .appendSystemPrompt("and kind")
            .tools("Read")
            .maxBudgetUsd(1.5)
            .maxThinkingTokens(1024)
            .strictMcpConfig(true)
            .extraArg("mock-script", "/tmp/s.json")
            .extraArg("base-url", "http://127.0.0.1:9");
    Map<String, Object> o = Json.parseObject(OptionsMapper.sessionOptionsJson(every));
    for (String key : o.keySet()) {
      assertTrue(SessionOptionKeys.ALL.contains(key), "the mapper writes a key dcl does not read: " + key);
    }
    assertFalse(SessionOptionKeys.ALL.contains("maxTurn"), "the check can fail");
  }

  @Test
  void sessionOptionSetsAnySchemaKeyInProcessAndRefusesOthers() {
    AgentOptions o = new AgentOptions().cliPath("/opt/dcl").sessionOption(SessionOptionKeys.MAX_LINE_BYTES, 4096L);
    assertEquals(4096L, Json.parseObject(OptionsMapper.sessionOptionsJson(o)).get("maxLineBytes"));
    InvalidOptionsException e =
        assertThrows(InvalidOptionsException.class, () -> new AgentOptions().sessionOption("maxLineByte", 1));
    assertTrue(e.getMessage().contains("maxLineByte"), e.getMessage());
    assertThrows(InvalidOptionsException.class, () -> OptionsMapper.argv(o));
  }

  @Test
  void environmentIsInheritedThenChanged() {
    AgentOptions o = new AgentOptions().env("DCL_TEST_VAR", "1").env("PATH", null);
    Map<String, String> env = OptionsMapper.environment(o);
    assertEquals("1", env.get("DCL_TEST_VAR"));
    assertFalse(env.containsKey("PATH"));
    assertTrue(env.size() > 1, "the process environment is the base");
    assertEquals(1, OptionsMapper.environment(new AgentOptions().inheritEnv(false).env("A", "b")).size());
  }

  @Test
  void aNumericExtraArgMustBeANumber() {
    AgentOptions o = new AgentOptions().extraArg("max-turns", "three");
    assertThrows(IllegalArgumentException.class, () -> OptionsMapper.sessionOptionsJson(o));
  }
}
