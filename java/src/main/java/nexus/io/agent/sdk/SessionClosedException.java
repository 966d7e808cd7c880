package nexus.io.agent.sdk;

/** The session has ended (or was closed); nothing more can be sent to it. */
public class SessionClosedException extends AgentConnectionException {
  private static final long serialVersionUID = 1L;

  /** @param message what happened */
  public SessionClosedException(String message) {
    super(message);
  }
}
