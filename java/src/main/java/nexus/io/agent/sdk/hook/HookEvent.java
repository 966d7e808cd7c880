package nexus.io.agent.sdk.hook;

/** The hook events dcl fires. */
public enum HookEvent {
  /** Before a tool runs; may deny it or change its input. */
  PRE_TOOL_USE("PreToolUse"),
  /** After a tool succeeded. */
  POST_TOOL_USE("PostToolUse"),
  /** After a tool failed. */
  POST_TOOL_USE_FAILURE("PostToolUseFailure"),
  /** When a prompt arrives. */
  USER_PROMPT_SUBMIT("UserPromptSubmit"),
  /** When the turn is about to end. */
  STOP("Stop"),
  /** When the session starts. */
  SESSION_START("SessionStart"),
  /** When a tool call asks for permission. */
  PERMISSION_REQUEST("PermissionRequest"),
  /** When a tool call was denied. */
  PERMISSION_DENIED("PermissionDenied");

  private final String wire;

  HookEvent(String wire) {
    this.wire = wire;
  }

  /** @return the protocol's name ({@code PreToolUse}) */
  public String wireName() {
    return wire;
  }
}
