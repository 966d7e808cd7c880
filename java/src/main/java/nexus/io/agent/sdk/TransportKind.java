package nexus.io.agent.sdk;

/**
 * Which way the SDK reaches dcl. The code above the transport (callbacks, messages, sessions)
 * is the same for both.
 */
public enum TransportKind {
  /**
   * {@link #IN_PROCESS} when the native library loads, else {@link #SUBPROCESS}. Overridden by
   * the system property {@code dcl.transport} or the environment variable {@code
   * DCL_JAVA_TRANSPORT} ({@code in-process}, {@code subprocess} or {@code auto}).
   */
  AUTO,
  /** dcl's core inside this JVM, through JNI ({@code libdcl_java}). */
  IN_PROCESS,
  /**
   * The {@code dcl} executable at {@link AgentOptions#cliPath(String)}, speaking stream-json on
   * its stdin and stdout.
   */
  SUBPROCESS;

  /**
   * @param name {@code in-process} (or {@code jni}), {@code subprocess} (or {@code cli}), {@code
   *     auto}; case-insensitive; null means {@link #AUTO}
   * @return the kind
   */
  public static TransportKind parse(String name) {
    if (name == null || name.trim().isEmpty()) {
      return AUTO;
    }
    String n = name.trim().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    if (n.equals("in-process") || n.equals("inprocess") || n.equals("jni") || n.equals("native")) {
      return IN_PROCESS;
    }
    if (n.equals("subprocess") || n.equals("cli") || n.equals("process")) {
      return SUBPROCESS;
    }
    if (n.equals("auto")) {
      return AUTO;
    }
    throw new IllegalArgumentException("unknown transport: " + name);
  }
}
