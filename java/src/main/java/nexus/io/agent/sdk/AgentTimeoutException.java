package nexus.io.agent.sdk;

/** Nothing arrived from the session within the time allowed. */
public class AgentTimeoutException extends AgentException {
  private static final long serialVersionUID = 1L;

  /** @param message what was waited for */
  public AgentTimeoutException(String message) {
    super(message);
  }
}
