package nexus.io.agent.sdk;

/** The session could not be opened, or is no longer reachable (the process died, ...). */
public class AgentConnectionException extends AgentException {
  private static final long serialVersionUID = 1L;

  /** @param message what went wrong */
  public AgentConnectionException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong
   * @param cause the underlying failure
   */
  public AgentConnectionException(String message, Throwable cause) {
    super(message, cause);
  }
}
