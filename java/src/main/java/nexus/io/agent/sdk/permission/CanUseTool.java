package nexus.io.agent.sdk.permission;

import java.util.Map;

/**
 * Decides whether a tool call may run: {@code (tool, input, context) -> PermissionResult}.
 *
 * <p>Called on an SDK thread, one call per request, so a slow decision stalls only its own
 * turn. An exception it throws denies the call (its message reaches the model).
 */
@FunctionalInterface
public interface CanUseTool {
  /**
   * @param toolName the tool ({@code Bash}, {@code Write}, {@code mcp__app__server_time}, ...)
   * @param input the call's input
   * @param context more about the call
   * @return the decision
   * @throws Exception to deny with the exception's message
   */
  PermissionResult canUseTool(String toolName, Map<String, Object> input, ToolPermissionContext context)
      throws Exception;
}
