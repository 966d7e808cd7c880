package nexus.io.agent.sdk.mcp;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import nexus.io.agent.sdk.json.JsonAccess;

/**
 * An MCP server living in this JVM. dcl reaches it through {@code mcp_message} control requests
 * carrying JSON-RPC; this class answers {@code initialize}, {@code ping}, {@code tools/list},
 * {@code tools/call} and notifications itself, so no MCP library is needed.
 *
 * <pre>{@code
 * McpServer app = McpServer.create("app")
 *     .tool(new McpTool("server_time", "The server's time", null,
 *         args -> McpToolResult.text(java.time.Instant.now().toString())));
 * options.mcpServer(app).allowedTools("mcp__app__server_time");
 * }</pre>
 */
public final class McpServer {
  /** The MCP protocol revision answered when the client names none. */
  public static final String DEFAULT_PROTOCOL_VERSION = "2025-06-18";

  private final String name;
  private final String version;
  private final Map<String, McpTool> tools = new LinkedHashMap<String, McpTool>();

  private McpServer(String name, String version) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("an MCP server needs a name");
    }
    this.name = name;
    this.version = version;
  }

  /**
   * @param name the server's name (the {@code s} of {@code mcp__s__tool})
   * @return a server with no tools, version 1.0.0
   */
  public static McpServer create(String name) {
    return new McpServer(name, "1.0.0");
  }

  /**
   * @param name the server's name
   * @param version its version
   * @return a server with no tools
   */
  public static McpServer create(String name, String version) {
    return new McpServer(name, version);
  }

  /**
   * @param tool a tool to serve
   * @return this server
   */
  public synchronized McpServer tool(McpTool tool) {
    tools.put(tool.getName(), tool);
    return this;
  }

  /** @return the server's name */
  public String getName() {
    return name;
  }

  /** @return the server's version */
  public String getVersion() {
    return version;
  }

  /** @return the tools, in the order added */
  public synchronized List<McpTool> getTools() {
    return Collections.unmodifiableList(new ArrayList<McpTool>(tools.values()));
  }

  /**
   * Answers one JSON-RPC message.
   *
   * @param message the request or notification
   * @return the response, or null for a notification
   */
  public Map<String, Object> handle(Map<String, Object> message) {
    String method = JsonAccess.string(message, "method");
    if (!message.containsKey("id") || method == null) {
      return null; // a notification (or a stray response): nothing to answer
    }
    Object id = message.get("id");
    Map<String, Object> params = JsonAccess.object(message, "params");
    if ("initialize".equals(method)) {
      Map<String, Object> result = new LinkedHashMap<String, Object>();
      String asked = JsonAccess.string(params, "protocolVersion");
      result.put("protocolVersion", asked != null ? asked : DEFAULT_PROTOCOL_VERSION);
      result.put(
          "capabilities",
          Collections.singletonMap("tools", Collections.singletonMap("listChanged", Boolean.FALSE)));
      Map<String, Object> info = new LinkedHashMap<String, Object>();
      info.put("name", name);
      info.put("version", version);
      result.put("serverInfo", info);
      return ok(id, result);
    }
    if ("ping".equals(method)) {
      return ok(id, new LinkedHashMap<String, Object>());
    }
    if ("tools/list".equals(method)) {
      List<Object> list = new ArrayList<Object>();
      for (McpTool t : getTools()) {
        Map<String, Object> entry = new LinkedHashMap<String, Object>();
        entry.put("name", t.getName());
        entry.put("description", t.getDescription());
        entry.put("inputSchema", t.getInputSchema());
        list.add(entry);
      }
      return ok(id, Collections.<String, Object>singletonMap("tools", list));
    }
    if ("tools/call".equals(method)) {
      Map<String, Object> args = JsonAccess.object(params, "arguments");
      return ok(id, callTool(JsonAccess.string(params, "name"), args));
    }
    Map<String, Object> error = new LinkedHashMap<String, Object>();
    error.put("code", -32601);
    error.put("message", "Method not found: " + method);
    Map<String, Object> out = new LinkedHashMap<String, Object>();
    out.put("jsonrpc", "2.0");
    out.put("id", id);
    out.put("error", error);
    return out;
  }

  /**
   * Runs one tool; every failure becomes an {@code isError} result the model reads.
   *
   * @param toolName the tool
   * @param arguments its arguments (null: none)
   * @return the MCP {@code tools/call} result
   */
  public Map<String, Object> callTool(String toolName, Map<String, Object> arguments) {
    McpTool tool;
    synchronized (this) {
      tool = toolName == null ? null : tools.get(toolName);
    }
    McpToolResult result;
    if (tool == null) {
      result = McpToolResult.error("Tool '" + toolName + "' not found");
    } else {
      Map<String, Object> args =
          arguments != null ? arguments : new LinkedHashMap<String, Object>();
      String problem = validate(args, tool.getInputSchema());
      if (problem != null) {
        result = McpToolResult.error("Input validation error: " + problem);
      } else {
        try {
          result = tool.getHandler().call(args);
          if (result == null) {
            result = McpToolResult.error("tool " + toolName + " returned no result");
          }
        } catch (Exception e) {
          result = McpToolResult.error(e.getMessage() != null ? e.getMessage() : e.toString());
        }
      }
    }
    Map<String, Object> out = new LinkedHashMap<String, Object>();
    out.put("content", result.getContent());
    out.put("isError", result.isError());
    return out;
  }

  /** Required keys and top-level types; a small check, not a full JSON Schema validator. */
  static String validate(Map<String, Object> args, Map<String, Object> schema) {
    for (Object key : JsonAccess.array(schema, "required")) {
      if (!args.containsKey(String.valueOf(key))) {
        return "'" + key + "' is a required property";
      }
    }
    Map<String, Object> props = JsonAccess.object(schema, "properties");
    if (props == null) {
      return null;
    }
    for (Map.Entry<String, Object> e : props.entrySet()) {
      if (!args.containsKey(e.getKey()) || !(e.getValue() instanceof Map)) {
        continue;
      }
      @SuppressWarnings("unchecked")
      String type = JsonAccess.string((Map<String, Object>) e.getValue(), "type");
      Object v = args.get(e.getKey());
      if (type != null && !hasType(v, type)) {
        return v + " is not of type '" + type + "'";
      }
    }
    return null;
  }

  private static boolean hasType(Object v, String type) {
    switch (type) {
      case "string":
        return v instanceof String;
      case "integer":
        return v instanceof Long || v instanceof Integer || v instanceof java.math.BigInteger;
      case "number":
        return v instanceof Number;
      case "boolean":
        return v instanceof Boolean;
      case "array":
        return v instanceof List;
      case "object":
        return v instanceof Map;
      case "null":
        return v == null;
      default:
        return true;
    }
  }

  private static Map<String, Object> ok(Object id, Map<String, Object> result) {
    Map<String, Object> out = new LinkedHashMap<String, Object>();
    out.put("jsonrpc", "2.0");
    out.put("id", id);
    out.put("result", result);
    return out;
  }
}
