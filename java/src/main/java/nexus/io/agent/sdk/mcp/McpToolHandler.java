package nexus.io.agent.sdk.mcp;

import java.util.Map;

/** Runs an in-JVM MCP tool. An exception it throws reaches the model as an error result. */
@FunctionalInterface
public interface McpToolHandler {
  /**
   * @param arguments the call's arguments (already checked against the tool's schema)
   * @return the result
   * @throws Exception to fail the call
   */
  McpToolResult call(Map<String, Object> arguments) throws Exception;
}
