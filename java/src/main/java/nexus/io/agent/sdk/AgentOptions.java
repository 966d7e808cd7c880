package nexus.io.agent.sdk;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import nexus.io.agent.sdk.hook.HookCallback;
import nexus.io.agent.sdk.hook.HookEvent;
import nexus.io.agent.sdk.hook.HookMatcher;
import nexus.io.agent.sdk.mcp.McpServer;
import nexus.io.agent.sdk.permission.CanUseTool;

/**
 * How a session is opened. Every setter returns {@code this}:
 *
 * <pre>{@code
 * AgentOptions options = new AgentOptions()
 *     .cliPath("dcl")
 *     .model("deepseek-flash")
 *     .permissionMode(PermissionMode.DEFAULT)
 *     .canUseTool((tool, input, context) -> "Bash".equals(tool)
 *         ? PermissionResult.deny("Bash is disabled")
 *         : PermissionResult.allow());
 * }</pre>
 *
 * <p>The same options drive both transports ({@link #transport(TransportKind)}): in-process they
 * become dcl's session-options JSON, for the subprocess its command-line flags.
 *
 * <p>Not supported yet by dcl: {@link #resume(String)} and {@link #continueConversation(boolean)}
 * make opening the session fail with an {@link AgentConnectionException} saying so; {@link
 * #forkSession(boolean)} is accepted and reported as a warning ({@link AgentClient#getWarnings()}).
 * Instances are not thread-safe while being built; a built instance may be shared by sessions.
 */
public final class AgentOptions {
  private String cliPath;
  private TransportKind transport = TransportKind.AUTO;
  private String model;
  private String fallbackModel;
  private PermissionMode permissionMode;
  private CanUseTool canUseTool;
  private final Map<String, String> extraArgs = new LinkedHashMap<String, String>();
  private final Map<String, Object> sessionOptions = new LinkedHashMap<String, Object>();
  private String cwd;
  private String systemPrompt;
  private String appendSystemPrompt;
  private final List<String> allowedTools = new ArrayList<String>();
  private final List<String> disallowedTools = new ArrayList<String>();
  private List<String> tools;
  private final Map<String, List<HookMatcher>> hooks = new LinkedHashMap<String, List<HookMatcher>>();
  private final Map<String, McpServer> mcpServers = new LinkedHashMap<String, McpServer>();
  private final Map<String, Map<String, Object>> externalMcpServers =
      new LinkedHashMap<String, Map<String, Object>>();
  private boolean strictMcpConfig;
  private final Map<String, String> env = new LinkedHashMap<String, String>();
  private boolean inheritEnv = true;
  private Integer maxTurns;
  private Double maxBudgetUsd;
  private Integer maxThinkingTokens;
  private String effort;
  private final List<String> addDirs = new ArrayList<String>();
  private boolean includePartialMessages;
  private String sessionId;
  private String resume;
  private boolean continueConversation;
  private boolean forkSession;
  private String settings;
  private String sessionStore;
  private List<String> settingSources;
  private Map<String, Object> jsonSchema;
  private String baseUrl;
  private String apiKey;
  private String apiFormat;
  private String mockScript;
  private Double hostTimeoutSeconds;
  private long controlRequestTimeoutMs = 60_000;

  /** Options with dcl's defaults. */
  public AgentOptions() {}

  /**
   * The {@code dcl} executable of the subprocess transport (a name on {@code PATH} or a path).
   * Default: the system property {@code dcl.cli.path}, else the environment variable {@code
   * DCL_CLI_PATH}, else {@code dcl} when it is on {@code PATH}, else the {@code dcl} this jar
   * carries (extracted and checksummed, see {@link
   * nexus.io.agent.sdk.transport.NativeBridge.Bundled}), else {@code dcl}. The in-process
   * transport does not use it.
   *
   * @param cliPath the executable
   * @return this
   */
  public AgentOptions cliPath(String cliPath) {
    this.cliPath = cliPath;
    return this;
  }

  /**
   * Picks the transport; see {@link TransportKind}. Default {@link TransportKind#AUTO}.
   *
   * @param transport the transport
   * @return this
   */
  public AgentOptions transport(TransportKind transport) {
    this.transport = transport == null ? TransportKind.AUTO : transport;
    return this;
  }

  /**
   * @param model the model id ({@code mock-model} runs offline; {@code sonnet}, {@code
   *     deepseek-chat}, ...)
   * @return this
   */
  public AgentOptions model(String model) {
    this.model = model;
    return this;
  }

  /**
   * @param fallbackModel the model that takes over when {@code model} stays overloaded
   * @return this
   */
  public AgentOptions fallbackModel(String fallbackModel) {
    this.fallbackModel = fallbackModel;
    return this;
  }

  /**
   * @param permissionMode how tool calls are approved
   * @return this
   */
  public AgentOptions permissionMode(PermissionMode permissionMode) {
    this.permissionMode = permissionMode;
    return this;
  }

  /**
   * Asks this callback about every tool call the permission mode and rules do not settle.
   * Without one, such calls are denied.
   *
   * @param canUseTool the decision
   * @return this
   */
  public AgentOptions canUseTool(CanUseTool canUseTool) {
    this.canUseTool = canUseTool;
    return this;
  }

  /**
   * A dcl flag without a setter, as {@code --name value} ({@code value} null: a bare {@code
   * --name}). For the subprocess it is appended to the command line; in-process the flags dcl
   * knows are applied ({@code api-format}, {@code base-url}, {@code mock-script}, {@code
   * max-turns}, ...) and any other is reported as a warning, as the CLI does.
   *
   * @param name the flag without dashes ({@code api-format})
   * @param value its value, or null
   * @return this
   */
  public AgentOptions extraArg(String name, String value) {
    String n = name;
    while (n.startsWith("-")) {
      n = n.substring(1);
    }
    extraArgs.put(n, value);
    return this;
  }

  /**
   * Sets a key of dcl's options JSON directly: any option the engine reads, including ones
   * without a setter here ({@link nexus.io.agent.sdk.generated.SessionOptionKeys} lists them,
   * generated from the engine's schema). It wins over the setters. In-process only: the
   * subprocess transport refuses a session that sets one, as the CLI has no flag for it.
   *
   * @param key a key of {@code SessionOptionKeys.ALL} ({@code maxLineBytes})
   * @param value its JSON value (String, Number, Boolean, List, Map or null)
   * @return this
   * @throws InvalidOptionsException for a key dcl does not read
   */
  public AgentOptions sessionOption(String key, Object value) {
    if (!nexus.io.agent.sdk.generated.SessionOptionKeys.ALL.contains(key)) {
      throw new InvalidOptionsException("unknown session option \"" + key + "\"", key);
    }
    sessionOptions.put(key, value);
    return this;
  }

  /**
   * @return the keys set with {@link #sessionOption(String, Object)}, in order
   */
  public Map<String, Object> getSessionOptions() {
    return Collections.unmodifiableMap(sessionOptions);
  }

  /**
   * @param cwd the working directory of the session's tools (default: this process's)
   * @return this
   */
  public AgentOptions cwd(String cwd) {
    this.cwd = cwd;
    return this;
  }

  /**
   * @param cwd the working directory of the session's tools
   * @return this
   */
  public AgentOptions cwd(File cwd) {
    this.cwd = cwd == null ? null : cwd.getPath();
    return this;
  }

  /**
   * @param systemPrompt replaces dcl's system prompt ({@code ""}: none)
   * @return this
   */
  public AgentOptions systemPrompt(String systemPrompt) {
    this.systemPrompt = systemPrompt;
    return this;
  }

  /**
   * @param text appended to the system prompt
   * @return this
   */
  public AgentOptions appendSystemPrompt(String text) {
    this.appendSystemPrompt = text;
    return this;
  }

  /**
   * @param rules rules that run unasked ({@code Read}, {@code Bash(git status:*)}, {@code
   *     mcp__app__server_time})
   * @return this
   */
  public AgentOptions allowedTools(String... rules) {
    allowedTools.addAll(Arrays.asList(rules));
    return this;
  }

  /**
   * @param rules rules that are always refused; a whole-tool rule hides the tool
   * @return this
   */
  public AgentOptions disallowedTools(String... rules) {
    disallowedTools.addAll(Arrays.asList(rules));
    return this;
  }

  /**
   * @param names restricts the built-in tools to these (none given: no built-in tools)
   * @return this
   */
  public AgentOptions tools(String... names) {
    this.tools = new ArrayList<String>(Arrays.asList(names));
    return this;
  }

  /**
   * Registers hook callbacks.
   *
   * @param event the event
   * @param matcher the callbacks and the tool names they apply to
   * @return this
   */
  public AgentOptions hook(HookEvent event, HookMatcher matcher) {
    List<HookMatcher> list = hooks.get(event.wireName());
    if (list == null) {
      list = new ArrayList<HookMatcher>();
      hooks.put(event.wireName(), list);
    }
    list.add(matcher);
    return this;
  }

  /**
   * Registers a hook callback for the tools {@code matcher} selects.
   *
   * @param event the event
   * @param matcher the tool-name pattern ({@code "Write"}, {@code "Bash|Edit"}), null for all
   * @param callback the callback
   * @return this
   */
  public AgentOptions hook(HookEvent event, String matcher, HookCallback callback) {
    return hook(event, new HookMatcher(matcher, null, callback));
  }

  /**
   * Serves an MCP server from this JVM; its tools reach the model as {@code
   * mcp__<server>__<tool>}.
   *
   * @param server the server
   * @return this
   */
  public AgentOptions mcpServer(McpServer server) {
    mcpServers.put(server.getName(), server);
    return this;
  }

  /**
   * Adds an external MCP server (stdio, http or sse), in the {@code mcpServers} config shape:
   * {@code {"type": "stdio", "command": "...", "args": [...]}}.
   *
   * @param name the server's name
   * @param config its configuration
   * @return this
   */
  public AgentOptions mcpServerConfig(String name, Map<String, Object> config) {
    externalMcpServers.put(name, new LinkedHashMap<String, Object>(config));
    return this;
  }

  /**
   * @param strict use only the servers given here, not the ones configured for dcl
   * @return this
   */
  public AgentOptions strictMcpConfig(boolean strict) {
    this.strictMcpConfig = strict;
    return this;
  }

  /**
   * Sets an environment variable of the session and its tools (model keys, base URLs, ...).
   *
   * @param name the variable
   * @param value its value; null removes an inherited one
   * @return this
   */
  public AgentOptions env(String name, String value) {
    env.put(name, value);
    return this;
  }

  /**
   * @param inherit start from this process's environment (default true)
   * @return this
   */
  public AgentOptions inheritEnv(boolean inherit) {
    this.inheritEnv = inherit;
    return this;
  }

  /**
   * @param maxTurns stop a turn after this many model calls
   * @return this
   */
  public AgentOptions maxTurns(int maxTurns) {
    this.maxTurns = maxTurns;
    return this;
  }

  /**
   * @param usd stop once the session's cost reaches this
   * @return this
   */
  public AgentOptions maxBudgetUsd(double usd) {
    this.maxBudgetUsd = usd;
    return this;
  }

  /**
   * @param tokens the thinking budget (0: off)
   * @return this
   */
  public AgentOptions maxThinkingTokens(int tokens) {
    this.maxThinkingTokens = tokens;
    return this;
  }

  /**
   * @param effort {@code low}, {@code medium}, {@code high} or {@code max}
   * @return this
   */
  public AgentOptions effort(String effort) {
    this.effort = effort;
    return this;
  }

  /**
   * @param dirs more directories the tools may use unasked
   * @return this
   */
  public AgentOptions addDirs(String... dirs) {
    addDirs.addAll(Arrays.asList(dirs));
    return this;
  }

  /**
   * @param include also deliver {@link nexus.io.agent.sdk.message.StreamEvent}s as the model
   *     streams
   * @return this
   */
  public AgentOptions includePartialMessages(boolean include) {
    this.includePartialMessages = include;
    return this;
  }

  /**
   * @param sessionId the new session's id (a UUID)
   * @return this
   */
  public AgentOptions sessionId(String sessionId) {
    this.sessionId = sessionId;
    return this;
  }

  /**
   * Resumes a stored session. <b>Not supported yet by dcl</b>: opening fails with an {@link
   * AgentConnectionException} that says so (kept so code written for the SDK compiles).
   *
   * @param sessionId the session to resume
   * @return this
   */
  public AgentOptions resume(String sessionId) {
    this.resume = sessionId;
    return this;
  }

  /**
   * Continues the most recent session. <b>Not supported yet by dcl</b>: see {@link
   * #resume(String)}.
   *
   * @param cont whether to continue
   * @return this
   */
  public AgentOptions continueConversation(boolean cont) {
    this.continueConversation = cont;
    return this;
  }

  /**
   * Forks a resumed session. Accepted; dcl reports it as a warning and ignores it.
   *
   * @param fork whether to fork
   * @return this
   */
  public AgentOptions forkSession(boolean fork) {
    this.forkSession = fork;
    return this;
  }

  /**
   * Drains the session to a shared store so any worker resumes it.
   *
   * @param url {@code postgres://...}, {@code redis://...}, {@code rediss://...}, {@code file:/dir};
   *     {@code file:} (the default) keeps sessions local
   * @return this
   */
  public AgentOptions sessionStore(String url) {
    this.sessionStore = url;
    return this;
  }

  /** @return the session store URL, or null */
  public String getSessionStore() {
    return sessionStore;
  }

  /**
   * @param settings settings JSON, or a path, on top of dcl's settings files
   * @return this
   */
  public AgentOptions settings(String settings) {
    this.settings = settings;
    return this;
  }

  /**
   * @param sources which settings files load ({@code user}, {@code project}, {@code local});
   *     none: no settings files
   * @return this
   */
  public AgentOptions settingSources(String... sources) {
    this.settingSources = new ArrayList<String>(Arrays.asList(sources));
    return this;
  }

  /**
   * @param schema structured output: the final answer must match this JSON Schema
   * @return this
   */
  public AgentOptions jsonSchema(Map<String, Object> schema) {
    this.jsonSchema = schema;
    return this;
  }

  /**
   * @param baseUrl the model endpoint (else the environment's)
   * @return this
   */
  public AgentOptions baseUrl(String baseUrl) {
    this.baseUrl = baseUrl;
    return this;
  }

  /**
   * @param apiKey the model API key (else the environment's)
   * @return this
   */
  public AgentOptions apiKey(String apiKey) {
    this.apiKey = apiKey;
    return this;
  }

  /**
   * @param apiFormat {@code anthropic} or {@code openai}
   * @return this
   */
  public AgentOptions apiFormat(String apiFormat) {
    this.apiFormat = apiFormat;
    return this;
  }

  /**
   * @param path a mock-model script (see dcl's README, "The mock model")
   * @return this
   */
  public AgentOptions mockScript(String path) {
    this.mockScript = path;
    return this;
  }

  /**
   * @param seconds how long dcl waits for this side's answers (permission, hook, MCP) before
   *     denying; default 300
   * @return this
   */
  public AgentOptions hostTimeoutSeconds(double seconds) {
    this.hostTimeoutSeconds = seconds;
    return this;
  }

  /**
   * @param millis how long a control request to dcl may take (at least 60 s for {@code
   *     initialize})
   * @return this
   */
  public AgentOptions controlRequestTimeoutMs(long millis) {
    this.controlRequestTimeoutMs = millis;
    return this;
  }

  // ------------------------------------------------------------------ getters

  /** @return the executable of the subprocess transport, after its defaults */
  public String getCliPath() {
    if (cliPath != null) {
      return cliPath;
    }
    String p = System.getProperty("dcl.cli.path");
    if (p == null || p.isEmpty()) {
      p = System.getenv("DCL_CLI_PATH");
    }
    if (p != null && !p.isEmpty()) {
      return p;
    }
    if (!onPath("dcl")) {
      String bundled = nexus.io.agent.sdk.transport.NativeBridge.Bundled.cliPath();
      if (bundled != null) {
        return bundled;
      }
    }
    return "dcl";
  }

  private static boolean onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty() && new File(dir, name).canExecute()) {
        return true;
      }
    }
    return false;
  }

  /** @return the transport asked for */
  public TransportKind getTransport() {
    return transport;
  }

  /** @return the model, or null */
  public String getModel() {
    return model;
  }

  /** @return the fallback model, or null */
  public String getFallbackModel() {
    return fallbackModel;
  }

  /** @return the permission mode, or null for dcl's default */
  public PermissionMode getPermissionMode() {
    return permissionMode;
  }

  /** @return the permission callback, or null */
  public CanUseTool getCanUseTool() {
    return canUseTool;
  }

  /** @return the extra flags, in order (read-only) */
  public Map<String, String> getExtraArgs() {
    return Collections.unmodifiableMap(extraArgs);
  }

  /** @return the working directory, or null */
  public String getCwd() {
    return cwd;
  }

  /** @return the system prompt, or null */
  public String getSystemPrompt() {
    return systemPrompt;
  }

  /** @return the appended system prompt, or null */
  public String getAppendSystemPrompt() {
    return appendSystemPrompt;
  }

  /** @return the allow rules */
  public List<String> getAllowedTools() {
    return Collections.unmodifiableList(allowedTools);
  }

  /** @return the deny rules */
  public List<String> getDisallowedTools() {
    return Collections.unmodifiableList(disallowedTools);
  }

  /** @return the built-in tool restriction, or null */
  public List<String> getTools() {
    return tools == null ? null : Collections.unmodifiableList(tools);
  }

  /** @return hooks by event name */
  public Map<String, List<HookMatcher>> getHooks() {
    return Collections.unmodifiableMap(hooks);
  }

  /** @return in-JVM MCP servers by name */
  public Map<String, McpServer> getMcpServers() {
    return Collections.unmodifiableMap(mcpServers);
  }

  /** @return external MCP servers by name */
  public Map<String, Map<String, Object>> getExternalMcpServers() {
    return Collections.unmodifiableMap(externalMcpServers);
  }

  /** @return whether only the servers given here are used */
  public boolean isStrictMcpConfig() {
    return strictMcpConfig;
  }

  /** @return environment additions (null values remove) */
  public Map<String, String> getEnv() {
    return Collections.unmodifiableMap(env);
  }

  /** @return whether the session starts from this process's environment */
  public boolean isInheritEnv() {
    return inheritEnv;
  }

  /** @return the turn limit, or null */
  public Integer getMaxTurns() {
    return maxTurns;
  }

  /** @return the budget, or null */
  public Double getMaxBudgetUsd() {
    return maxBudgetUsd;
  }

  /** @return the thinking budget, or null */
  public Integer getMaxThinkingTokens() {
    return maxThinkingTokens;
  }

  /** @return the effort, or null */
  public String getEffort() {
    return effort;
  }

  /** @return extra directories */
  public List<String> getAddDirs() {
    return Collections.unmodifiableList(addDirs);
  }

  /** @return whether stream events are delivered */
  public boolean isIncludePartialMessages() {
    return includePartialMessages;
  }

  /** @return the requested session id, or null */
  public String getSessionId() {
    return sessionId;
  }

  /** @return the session to resume, or null */
  public String getResume() {
    return resume;
  }

  /** @return whether to continue the last session */
  public boolean isContinueConversation() {
    return continueConversation;
  }

  /** @return whether to fork */
  public boolean isForkSession() {
    return forkSession;
  }

  /** @return settings JSON or path, or null */
  public String getSettings() {
    return settings;
  }

  /** @return settings sources, or null */
  public List<String> getSettingSources() {
    return settingSources == null ? null : Collections.unmodifiableList(settingSources);
  }

  /** @return the output schema, or null */
  public Map<String, Object> getJsonSchema() {
    return jsonSchema;
  }

  /** @return the model endpoint, or null */
  public String getBaseUrl() {
    return baseUrl;
  }

  /** @return the API key, or null */
  public String getApiKey() {
    return apiKey;
  }

  /** @return the API format, or null */
  public String getApiFormat() {
    return apiFormat;
  }

  /** @return the mock script, or null */
  public String getMockScript() {
    return mockScript;
  }

  /** @return the host timeout in seconds, or null */
  public Double getHostTimeoutSeconds() {
    return hostTimeoutSeconds;
  }

  /** @return the control-request timeout */
  public long getControlRequestTimeoutMs() {
    return controlRequestTimeoutMs;
  }
}
