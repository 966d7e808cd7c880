package nexus.io.agent.sdk;

/**
 * The session options were rejected: an unknown key, a bad value, a missing working
 * directory. {@link #getOption()} names the option (camelCase, as in dcl's options JSON) when
 * one is to blame.
 */
public class InvalidOptionsException extends AgentConnectionException {
  private static final long serialVersionUID = 1L;
  private final String option;

  /**
   * @param message what is wrong
   * @param option the option's name, or null
   */
  public InvalidOptionsException(String message, String option) {
    super(message);
    this.option = option;
  }

  /** @return the rejected option's name (for example {@code "cwd"}), or null */
  public String getOption() {
    return option;
  }
}
