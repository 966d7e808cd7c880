package nexus.io.agent.sdk;

/** How tool calls are approved; see dcl's README, "Permissions". */
public enum PermissionMode {
  /** Read-only tools inside the working directory run; everything else asks {@code canUseTool}. */
  DEFAULT("default"),
  /** File edits run unasked as well. */
  ACCEPT_EDITS("acceptEdits"),
  /** Nothing that writes or executes runs. */
  PLAN("plan"),
  /** Everything runs unasked. */
  BYPASS_PERMISSIONS("bypassPermissions"),
  /** What would ask is denied instead. */
  DONT_ASK("dontAsk");

  private final String wire;

  PermissionMode(String wire) {
    this.wire = wire;
  }

  /** @return the protocol's name of the mode ({@code acceptEdits}) */
  public String wireName() {
    return wire;
  }

  /**
   * @param name a protocol name ({@code acceptEdits}) or a constant name ({@code ACCEPT_EDITS})
   * @return the mode
   * @throws IllegalArgumentException for an unknown name
   */
  public static PermissionMode fromWire(String name) {
    for (PermissionMode m : values()) {
      if (m.wire.equals(name) || m.name().equalsIgnoreCase(name)) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown permission mode: " + name);
  }
}
