package nexus.io.agent.sdk;

import nexus.io.agent.sdk.message.ResultMessage;

/**
 * A turn ended in an error result ({@code is_error: true}): the model API failed, the turn hit
 * its limits, or it was interrupted. Thrown by {@link Agent#query} after every message of the
 * turn has been delivered; the result itself is {@link #getResultMessage()}.
 */
public class ResultErrorException extends AgentException {
  private static final long serialVersionUID = 1L;
  private final transient ResultMessage result;

  /** @param result the error result */
  public ResultErrorException(ResultMessage result) {
    super(describe(result));
    this.result = result;
  }

  private static String describe(ResultMessage r) {
    StringBuilder sb = new StringBuilder("the turn ended with ").append(r.getSubtype());
    if (r.getResult() != null && !r.getResult().isEmpty()) {
      sb.append(": ").append(r.getResult());
    } else if (!r.getErrors().isEmpty()) {
      sb.append(": ").append(r.getErrors());
    }
    return sb.toString();
  }

  /** @return the error result */
  public ResultMessage getResultMessage() {
    return result;
  }
}
