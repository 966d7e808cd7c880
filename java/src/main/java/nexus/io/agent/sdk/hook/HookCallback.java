package nexus.io.agent.sdk.hook;

import java.util.Map;

/**
 * A hook run by dcl at an event ({@code PreToolUse}, {@code PostToolUse}, ...). It returns the
 * hook output: {@code {}} to go on, or keys such as {@code continue}, {@code stopReason}, {@code
 * systemMessage}, {@code decision}/{@code reason}, {@code hookSpecificOutput} (with {@code
 * permissionDecision}, {@code permissionDecisionReason}, {@code updatedInput}, {@code
 * additionalContext}); {@link HookOutput} builds the common ones. An exception it throws is
 * reported to dcl as the hook's failure.
 */
@FunctionalInterface
public interface HookCallback {
  /**
   * @param input the hook input ({@code hook_event_name}, {@code tool_name}, {@code
   *     tool_input}, ...)
   * @param toolUseId the tool call concerned, or null
   * @param context more about the call
   * @return the hook output; null means {@code {}}
   * @throws Exception to fail the hook
   */
  Map<String, Object> call(Map<String, Object> input, String toolUseId, HookContext context)
      throws Exception;
}
