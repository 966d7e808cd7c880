package nexus.io.agent.sdk.mcp;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** An MCP tool served from this JVM. The model sees tool {@code t} of server {@code s} as {@code mcp__s__t}. */
public final class McpTool {
  private final String name;
  private final String description;
  private final Map<String, Object> inputSchema;
  private final McpToolHandler handler;

  /**
   * @param name the tool's name within its server
   * @param description what it does (the model reads it)
   * @param inputSchema a JSON Schema of its arguments, as a map; null means no arguments
   * @param handler runs the tool
   */
  public McpTool(
      String name, String description, Map<String, Object> inputSchema, McpToolHandler handler) {
    if (name == null || name.isEmpty() || handler == null) {
      throw new IllegalArgumentException("an MCP tool needs a name and a handler");
    }
    this.name = name;
    this.description = description == null ? "" : description;
    this.inputSchema = inputSchema != null ? inputSchema : emptySchema();
    this.handler = handler;
  }

  /**
   * A schema of string, integer, number or boolean parameters, all required.
   *
   * @param namesAndTypes alternating names and JSON types, e.g. {@code "city", "string", "days",
   *     "integer"}
   * @return the JSON Schema
   */
  public static Map<String, Object> schema(String... namesAndTypes) {
    if (namesAndTypes.length % 2 != 0) {
      throw new IllegalArgumentException("schema() takes name/type pairs");
    }
    Map<String, Object> props = new LinkedHashMap<String, Object>();
    java.util.List<Object> required = new java.util.ArrayList<Object>();
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      props.put(namesAndTypes[i], Collections.<String, Object>singletonMap("type", namesAndTypes[i + 1]));
      required.add(namesAndTypes[i]);
    }
    Map<String, Object> out = new LinkedHashMap<String, Object>();
    out.put("type", "object");
    out.put("properties", props);
    out.put("required", required);
    return out;
  }

  private static Map<String, Object> emptySchema() {
    Map<String, Object> out = new LinkedHashMap<String, Object>();
    out.put("type", "object");
    out.put("properties", new LinkedHashMap<String, Object>());
    return out;
  }

  /** @return the tool's name within its server */
  public String getName() {
    return name;
  }

  /** @return the description */
  public String getDescription() {
    return description;
  }

  /** @return the arguments' JSON Schema */
  public Map<String, Object> getInputSchema() {
    return inputSchema;
  }

  /** @return the handler */
  public McpToolHandler getHandler() {
    return handler;
  }
}
