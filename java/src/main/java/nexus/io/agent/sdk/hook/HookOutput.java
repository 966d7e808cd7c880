package nexus.io.agent.sdk.hook;

import java.util.LinkedHashMap;
import java.util.Map;

/** Common hook outputs, in the protocol's shape. */
public final class HookOutput {
  private HookOutput() {}

  /** @return go on as if there were no hook */
  public static Map<String, Object> proceed() {
    return new LinkedHashMap<String, Object>();
  }

  /**
   * @param reason why; the model reads it
   * @return for {@code PreToolUse}: refuse the tool call
   */
  public static Map<String, Object> denyToolUse(String reason) {
    return decision("deny", reason);
  }

  /**
   * @param reason why
   * @return for {@code PreToolUse}: run the call without asking
   */
  public static Map<String, Object> allowToolUse(String reason) {
    return decision("allow", reason);
  }

  /**
   * @param reason shown as the stop reason
   * @return stop the turn
   */
  public static Map<String, Object> stop(String reason) {
    Map<String, Object> out = new LinkedHashMap<String, Object>();
    out.put("continue", Boolean.FALSE);
    out.put("stopReason", reason);
    return out;
  }

  private static Map<String, Object> decision(String decision, String reason) {
    Map<String, Object> specific = new LinkedHashMap<String, Object>();
    specific.put("hookEventName", "PreToolUse");
    specific.put("permissionDecision", decision);
    specific.put("permissionDecisionReason", reason);
    Map<String, Object> out = new LinkedHashMap<String, Object>();
    out.put("hookSpecificOutput", specific);
    return out;
  }
}
