package nexus.io.agent.sdk;

/** A control request to dcl (interrupt, set_model, ...) failed or was not answered in time. */
public class ControlRequestException extends AgentException {
  private static final long serialVersionUID = 1L;
  private final String subtype;

  /**
   * @param subtype the request's subtype
   * @param message dcl's error text
   */
  public ControlRequestException(String subtype, String message) {
    super(subtype + ": " + message);
    this.subtype = subtype;
  }

  /** @return the failed request's subtype (for example {@code "set_model"}) */
  public String getSubtype() {
    return subtype;
  }
}
