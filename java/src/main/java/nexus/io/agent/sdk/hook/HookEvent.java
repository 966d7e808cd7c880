package nexus.io.agent.sdk.hook;

/**
 * The hook events dcl fires: 29 of the TS SDK's 35 (the README's "Hook events" says why not the
 * rest).
 */
public enum HookEvent {
  /** Before a tool runs; may deny it or change its input. */
  PRE_TOOL_USE("PreToolUse"),
  /** After a tool succeeded. */
  POST_TOOL_USE("PostToolUse"),
  /** After a tool failed. */
  POST_TOOL_USE_FAILURE("PostToolUseFailure"),
  /** After every call of one model response has its result. */
  POST_TOOL_BATCH("PostToolBatch"),
  /** When dcl asks the host for permission or forwards an MCP elicitation. */
  NOTIFICATION("Notification"),
  /** When a prompt arrives. */
  USER_PROMPT_SUBMIT("UserPromptSubmit"),
  /** When a prompt expands a custom slash command or skill. */
  USER_PROMPT_EXPANSION("UserPromptExpansion"),
  /** When the session starts. */
  SESSION_START("SessionStart"),
  /** When the session ends. */
  SESSION_END("SessionEnd"),
  /** When the turn is about to end. */
  STOP("Stop"),
  /** When a turn ends on an API error. */
  STOP_FAILURE("StopFailure"),
  /** When an interrupt ends a main-thread turn; its answer is not read. */
  INTERRUPT("Interrupt"),
  /** When a subagent starts. */
  SUBAGENT_START("SubagentStart"),
  /** When a subagent is about to end. */
  SUBAGENT_STOP("SubagentStop"),
  /** Before the conversation is compacted. */
  PRE_COMPACT("PreCompact"),
  /** After the conversation was compacted. */
  POST_COMPACT("PostCompact"),
  /** Before set_model changes the model; may refuse it. */
  PRE_MODEL_SWITCH("PreModelSwitch"),
  /** After the model changed (set_model or the fallback model). */
  POST_MODEL_SWITCH("PostModelSwitch"),
  /** When a tool call asks for permission. */
  PERMISSION_REQUEST("PermissionRequest"),
  /** When a tool call was denied. */
  PERMISSION_DENIED("PermissionDenied"),
  /** When a background agent or shell starts. */
  TASK_CREATED("TaskCreated"),
  /** When a background agent or shell completes. */
  TASK_COMPLETED("TaskCompleted"),
  /** When an MCP server asks for input; may answer it. */
  ELICITATION("Elicitation"),
  /** After an MCP elicitation was answered; may change the answer. */
  ELICITATION_RESULT("ElicitationResult"),
  /** When an approval's permission update wrote a settings file. */
  CONFIG_CHANGE("ConfigChange"),
  /** For each memory file (CLAUDE.md, DCL.md, AGENTS.md) at the first prompt. */
  INSTRUCTIONS_LOADED("InstructionsLoaded"),
  /** When a Bash cd moved the shell's directory. */
  CWD_CHANGED("CwdChanged"),
  /** When Write, Edit or NotebookEdit changed a file. */
  FILE_CHANGED("FileChanged"),
  /** When a directory was added to the session's workspace. */
  DIRECTORY_ADDED("DirectoryAdded");

  private final String wire;

  HookEvent(String wire) {
    this.wire = wire;
  }

  /** @return the protocol's name ({@code PreToolUse}) */
  public String wireName() {
    return wire;
  }
}
