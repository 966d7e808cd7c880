package nexus.io.agent.sdk.json;

/** Text that is not valid JSON, or a value that cannot be written as JSON. */
public class JsonException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int position;

  /**
   * @param message what is wrong
   * @param position the character offset of the problem in the parsed text, or -1
   */
  public JsonException(String message, int position) {
    super(position >= 0 ? message + " at offset " + position : message);
    this.position = position;
  }

  /** The character offset of the problem in the parsed text, or -1 when writing. */
  public int getPosition() {
    return position;
  }
}
