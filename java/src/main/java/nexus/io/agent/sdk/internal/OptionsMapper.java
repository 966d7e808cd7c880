package nexus.io.agent.sdk.internal;

import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import nexus.io.agent.sdk.AgentConnectionException;
import nexus.io.agent.sdk.AgentOptions;
import nexus.io.agent.sdk.InvalidOptionsException;
import nexus.io.agent.sdk.json.Json;

/**
 * {@link AgentOptions} as dcl sees them: session-options JSON for the in-process transport,
 * command-line flags for the subprocess. Both carry the same settings, so a session behaves
 * the same whichever transport runs it.
 */
public final class OptionsMapper {
  private OptionsMapper() {}

  /** dcl flags an {@code extraArg} may carry in-process: flag -> [options key, kind]. */
  private static final Map<String, String[]> EXTRA_FLAGS = new HashMap<String, String[]>();

  static {
    flag("replay-user-messages", "replayUserMessages", "flag");
    flag("include-partial-messages", "includePartialMessages", "flag");
    flag("strict-mcp-config", "strictMcpConfig", "flag");
    flag("mock-script", "mockScript", "str");
    flag("api-format", "apiFormat", "str");
    flag("base-url", "baseUrl", "str");
    flag("api-key", "apiKey", "str");
    flag("fallback-model", "fallbackModel", "str");
    flag("model", "model", "str");
    flag("session-id", "sessionId", "str");
    flag("permission-mode", "permissionMode", "str");
    flag("system-prompt", "systemPrompt", "str");
    flag("append-system-prompt", "appendSystemPrompt", "str");
    flag("effort", "effort", "str");
    flag("settings", "settings", "str");
    flag("cwd", "cwd", "str");
    flag("max-turns", "maxTurns", "int");
    flag("max-thinking-tokens", "maxThinkingTokens", "int");
    flag("max-budget-usd", "maxBudgetUsd", "float");
    flag("host-timeout", "hostTimeoutSecs", "float");
    flag("add-dir", "addDirs", "list");
    flag("allowedTools", "allowedTools", "list");
    flag("allowed-tools", "allowedTools", "list");
    flag("disallowedTools", "disallowedTools", "list");
    flag("disallowed-tools", "disallowedTools", "list");
    flag("mcp-config", "mcpConfig", "list");
  }

  private static void flag(String name, String key, String kind) {
    EXTRA_FLAGS.put(name, new String[] {key, kind});
  }

  /**
   * Refuses what dcl cannot do yet, before anything starts.
   *
   * @param o the options
   * @throws AgentConnectionException for resume / continue
   * @throws InvalidOptionsException for a working directory that does not exist
   */
  public static void check(AgentOptions o) {
    String cwd = absoluteCwd(o);
    if (cwd != null && !new File(cwd).isDirectory()) {
      // Checked here so both transports name the option the same way.
      throw new InvalidOptionsException(
          "invalid session options: the working directory " + cwd + " does not exist", "cwd");
    }
    if (o.getResume() != null || o.isContinueConversation()) {
      throw new AgentConnectionException(
          "Resuming a session (resume / continueConversation) is not supported yet by this dcl build");
    }
  }

  /**
   * The session's environment: this process's (unless {@code inheritEnv(false)}), then the
   * options' additions and removals, and {@code PWD} for a set working directory.
   *
   * @param o the options
   * @return the whole environment
   */
  public static Map<String, String> environment(AgentOptions o) {
    Map<String, String> env = new LinkedHashMap<String, String>();
    if (o.isInheritEnv()) {
      env.putAll(System.getenv());
    }
    for (Map.Entry<String, String> e : o.getEnv().entrySet()) {
      if (e.getValue() == null) {
        env.remove(e.getKey());
      } else {
        env.put(e.getKey(), e.getValue());
      }
    }
    String cwd = absoluteCwd(o);
    if (cwd != null) {
      env.put("PWD", cwd);
    }
    return env;
  }

  /**
   * @param o the options
   * @return the working directory made absolute, or null
   */
  public static String absoluteCwd(AgentOptions o) {
    return o.getCwd() == null ? null : new File(o.getCwd()).getAbsolutePath();
  }

  /**
   * @param o the options
   * @return in-process MCP servers and external ones, in the {@code --mcp-config} shape, or null
   */
  static String mcpConfig(AgentOptions o) {
    if (o.getExternalMcpServers().isEmpty()) {
      return null;
    }
    Map<String, Object> config = new LinkedHashMap<String, Object>();
    config.put("mcpServers", o.getExternalMcpServers());
    return Json.write(config);
  }

  /**
   * The options JSON of {@code dcl_bridge::open} (dcl's {@code SessionOptions}).
   *
   * @param o the options
   * @return the JSON text
   */
  public static String sessionOptionsJson(AgentOptions o) {
    Map<String, Object> out = new LinkedHashMap<String, Object>();
    out.put("outputFormat", "stream-json");
    out.put("legacyEvents", Boolean.FALSE);
    List<String> ignored = new ArrayList<String>();
    String cwd = absoluteCwd(o);
    if (cwd != null) {
      out.put("cwd", cwd);
    }
    out.put("env", environment(o));
    putIf(out, "model", o.getModel());
    putIf(out, "fallbackModel", o.getFallbackModel());
    putIf(out, "systemPrompt", o.getSystemPrompt());
    putIf(out, "appendSystemPrompt", o.getAppendSystemPrompt());
    if (o.getPermissionMode() != null) {
      out.put("permissionMode", o.getPermissionMode().wireName());
    }
    if (o.getCanUseTool() != null) {
      out.put("permissionPromptTool", "stdio");
    }
    if (!o.getAllowedTools().isEmpty()) {
      out.put("allowedTools", new ArrayList<String>(o.getAllowedTools()));
    }
    if (!o.getDisallowedTools().isEmpty()) {
      out.put("disallowedTools", new ArrayList<String>(o.getDisallowedTools()));
    }
    if (o.getTools() != null) {
      out.put("tools", new ArrayList<String>(o.getTools()));
    }
    putIf(out, "maxTurns", o.getMaxTurns());
    putIf(out, "maxBudgetUsd", o.getMaxBudgetUsd());
    putIf(out, "maxThinkingTokens", o.getMaxThinkingTokens());
    putIf(out, "effort", o.getEffort());
    if (!o.getAddDirs().isEmpty()) {
      out.put("addDirs", new ArrayList<String>(o.getAddDirs()));
    }
    if (o.isIncludePartialMessages()) {
      out.put("includePartialMessages", Boolean.TRUE);
    }
    putIf(out, "sessionId", o.getSessionId());
    putIf(out, "settings", o.getSettings());
    putIf(out, "sessionStore", o.getSessionStore());
    if (o.getSettingSources() != null) {
      out.put("settingSources", new ArrayList<String>(o.getSettingSources()));
    }
    putIf(out, "jsonSchema", o.getJsonSchema());
    String mcp = mcpConfig(o);
    if (mcp != null) {
      List<Object> list = new ArrayList<Object>();
      list.add(mcp);
      out.put("mcpConfig", list);
    }
    if (o.isStrictMcpConfig()) {
      out.put("strictMcpConfig", Boolean.TRUE);
    }
    putIf(out, "hostTimeoutSecs", o.getHostTimeoutSeconds());
    putIf(out, "mockScript", o.getMockScript());
    putIf(out, "baseUrl", o.getBaseUrl());
    putIf(out, "apiKey", o.getApiKey());
    putIf(out, "apiFormat", o.getApiFormat());
    if (o.isForkSession()) {
      ignored.add("--fork-session");
    }
    for (Map.Entry<String, String> e : o.getExtraArgs().entrySet()) {
      extra(out, ignored, e.getKey(), e.getValue());
    }
    if (!ignored.isEmpty()) {
      out.put("ignoredFlags", ignored);
    }
    out.putAll(o.getSessionOptions());
    return Json.write(out);
  }

  @SuppressWarnings("unchecked")
  private static void extra(Map<String, Object> out, List<String> ignored, String name, String value) {
    String[] known = EXTRA_FLAGS.get(name);
    if (known == null) {
      // The CLI warns about flags it does not know; in-process dcl reports them the same way.
      ignored.add("--" + name);
      return;
    }
    String key = known[0];
    String kind = known[1];
    if (kind.equals("flag")) {
      out.put(key, Boolean.TRUE);
      return;
    }
    if (value == null) {
      throw new IllegalArgumentException("extraArg(\"" + name + "\") needs a value");
    }
    try {
      if (kind.equals("int")) {
        out.put(key, Long.parseLong(value.trim()));
      } else if (kind.equals("float")) {
        out.put(key, Double.parseDouble(value.trim()));
      } else if (kind.equals("list")) {
        Object prev = out.get(key);
        List<Object> list = prev instanceof List ? (List<Object>) prev : new ArrayList<Object>();
        if (key.endsWith("Tools")) {
          for (String part : value.split(",")) {
            if (!part.trim().isEmpty()) {
              list.add(part.trim());
            }
          }
        } else {
          list.add(value);
        }
        out.put(key, list);
      } else if (key.equals("cwd")) {
        out.put(key, new File(value).getAbsolutePath());
      } else {
        out.put(key, value);
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("extraArg(\"" + name + "\", \"" + value + "\"): expected a number");
    }
  }

  private static void putIf(Map<String, Object> out, String key, Object value) {
    if (value != null) {
      out.put(key, value);
    }
  }

  /**
   * The {@code dcl} command line of the subprocess transport.
   *
   * @param o the options
   * @return argv, executable first
   */
  public static List<String> argv(AgentOptions o) {
    if (!o.getSessionOptions().isEmpty()) {
      String key = o.getSessionOptions().keySet().iterator().next();
      throw new InvalidOptionsException(
          "sessionOption(\"" + key + "\") applies to the in-process transport only", key);
    }
    List<String> a = new ArrayList<String>();
    a.add(o.getCliPath());
    a.add("--input-format");
    a.add("stream-json");
    a.add("--output-format");
    a.add("stream-json");
    a.add("--no-legacy-events");
    arg(a, "--model", o.getModel());
    arg(a, "--fallback-model", o.getFallbackModel());
    arg(a, "--system-prompt", o.getSystemPrompt());
    arg(a, "--append-system-prompt", o.getAppendSystemPrompt());
    if (o.getPermissionMode() != null) {
      arg(a, "--permission-mode", o.getPermissionMode().wireName());
    }
    if (o.getCanUseTool() != null) {
      arg(a, "--permission-prompt-tool", "stdio");
    }
    // One flag per rule: a rule may itself contain a comma.
    for (String rule : o.getAllowedTools()) {
      arg(a, "--allowed-tools", rule);
    }
    for (String rule : o.getDisallowedTools()) {
      arg(a, "--disallowed-tools", rule);
    }
    if (o.getTools() != null) {
      arg(a, "--tools", join(o.getTools()));
    }
    arg(a, "--max-turns", o.getMaxTurns());
    arg(a, "--max-budget-usd", o.getMaxBudgetUsd());
    arg(a, "--max-thinking-tokens", o.getMaxThinkingTokens());
    arg(a, "--effort", o.getEffort());
    for (String d : o.getAddDirs()) {
      arg(a, "--add-dir", d);
    }
    if (o.isIncludePartialMessages()) {
      a.add("--include-partial-messages");
    }
    arg(a, "--session-id", o.getSessionId());
    arg(a, "--settings", o.getSettings());
    arg(a, "--session-store", o.getSessionStore());
    if (o.getSettingSources() != null) {
      arg(a, "--setting-sources", join(o.getSettingSources()));
    }
    if (o.getJsonSchema() != null) {
      arg(a, "--json-schema", Json.write(o.getJsonSchema()));
    }
    arg(a, "--mcp-config", mcpConfig(o));
    if (o.isStrictMcpConfig()) {
      a.add("--strict-mcp-config");
    }
    arg(a, "--host-timeout", o.getHostTimeoutSeconds());
    arg(a, "--mock-script", o.getMockScript());
    arg(a, "--base-url", o.getBaseUrl());
    arg(a, "--api-key", o.getApiKey());
    arg(a, "--api-format", o.getApiFormat());
    if (o.isForkSession()) {
      a.add("--fork-session");
    }
    for (Map.Entry<String, String> e : o.getExtraArgs().entrySet()) {
      a.add("--" + e.getKey());
      if (e.getValue() != null) {
        a.add(e.getValue());
      }
    }
    return a;
  }

  private static void arg(List<String> a, String flag, Object value) {
    if (value != null) {
      a.add(flag);
      a.add(String.valueOf(value));
    }
  }

  private static String join(List<String> items) {
    StringBuilder sb = new StringBuilder();
    for (String s : items) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(s);
    }
    return sb.toString();
  }
}
