package nexus.io.agent.sdk.permission;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The answer of a {@link CanUseTool} callback: allow (maybe with changed input) or deny. */
public final class PermissionResult {
  private final boolean allow;
  private final Map<String, Object> updatedInput;
  private final String message;
  private final boolean interrupt;
  private final List<Map<String, Object>> updatedPermissions;

  private PermissionResult(
      boolean allow,
      Map<String, Object> updatedInput,
      String message,
      boolean interrupt,
      List<Map<String, Object>> updatedPermissions) {
    this.allow = allow;
    this.updatedInput = updatedInput;
    this.message = message;
    this.interrupt = interrupt;
    this.updatedPermissions = updatedPermissions;
  }

  /** @return run the tool with its original input */
  public static PermissionResult allow() {
    return new PermissionResult(true, null, null, false, null);
  }

  /**
   * @param updatedInput the input the tool runs with instead
   * @return run the tool with changed input
   */
  public static PermissionResult allow(Map<String, Object> updatedInput) {
    return new PermissionResult(true, updatedInput, null, false, null);
  }

  /**
   * @param message why; the model reads it as the tool's error result
   * @return refuse the call
   */
  public static PermissionResult deny(String message) {
    return new PermissionResult(false, null, message, false, null);
  }

  /**
   * @param message why; the model reads it
   * @param interrupt also stop the whole turn
   * @return refuse the call
   */
  public static PermissionResult deny(String message, boolean interrupt) {
    return new PermissionResult(false, null, message, interrupt, null);
  }

  /**
   * Adds permission updates dcl applies for the rest of the session, e.g. {@code {"type":
   * "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow", "destination": "session"}}.
   *
   * @param updates the updates, in the protocol's shape
   * @return a copy carrying them
   */
  public PermissionResult withUpdatedPermissions(List<Map<String, Object>> updates) {
    return new PermissionResult(
        allow, updatedInput, message, interrupt, new ArrayList<Map<String, Object>>(updates));
  }

  /** @return whether the call may run */
  public boolean isAllow() {
    return allow;
  }

  /** @return the replacement input, or null */
  public Map<String, Object> getUpdatedInput() {
    return updatedInput;
  }

  /** @return the denial's message, or null */
  public String getMessage() {
    return message;
  }

  /** @return whether a denial also stops the turn */
  public boolean isInterrupt() {
    return interrupt;
  }

  /** @return permission updates, possibly empty */
  public List<Map<String, Object>> getUpdatedPermissions() {
    return updatedPermissions == null
        ? Collections.<Map<String, Object>>emptyList()
        : Collections.unmodifiableList(updatedPermissions);
  }

  /**
   * The answer in control-protocol form.
   *
   * @param originalInput the call's input, sent back when an allow changes nothing
   * @return {@code {"behavior": "allow", "updatedInput": ...}} or {@code {"behavior": "deny",
   *     "message": ...}}
   */
  public Map<String, Object> toWire(Map<String, Object> originalInput) {
    Map<String, Object> out = new LinkedHashMap<String, Object>();
    if (allow) {
      out.put("behavior", "allow");
      out.put("updatedInput", updatedInput != null ? updatedInput : originalInput);
    } else {
      out.put("behavior", "deny");
      out.put("message", message == null ? "" : message);
      if (interrupt) {
        out.put("interrupt", Boolean.TRUE);
      }
    }
    if (updatedPermissions != null) {
      out.put("updatedPermissions", updatedPermissions);
    }
    return out;
  }

  @Override
  public String toString() {
    return allow ? "allow" : "deny(" + message + ")";
  }
}
