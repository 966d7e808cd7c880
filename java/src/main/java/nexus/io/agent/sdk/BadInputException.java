package nexus.io.agent.sdk;

/** A line handed to the session could not be used; the session keeps serving. */
public class BadInputException extends AgentException {
  private static final long serialVersionUID = 1L;

  /** @param message why the line was refused */
  public BadInputException(String message) {
    super(message);
  }
}
