package nexus.io.agent.sdk;

/** Base class of every exception the SDK throws. Unchecked, like the JDK's I/O wrappers. */
public class AgentException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message what went wrong */
  public AgentException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong
   * @param cause the underlying failure
   */
  public AgentException(String message, Throwable cause) {
    super(message, cause);
  }
}
