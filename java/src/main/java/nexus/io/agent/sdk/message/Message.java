package nexus.io.agent.sdk.message;

import java.util.Collections;
import java.util.Map;
import nexus.io.agent.sdk.json.Json;
import nexus.io.agent.sdk.json.JsonAccess;

/**
 * One message from the session, as typed subclasses: {@link SystemMessage}, {@link
 * AssistantMessage}, {@link UserMessage}, {@link ResultMessage}, {@link StreamEvent}. {@link
 * #getRaw()} keeps every field of the protocol line, including ones this SDK has no getter for.
 */
public abstract class Message {
  private final Map<String, Object> raw;

  /** @param raw the parsed protocol line */
  protected Message(Map<String, Object> raw) {
    this.raw = Collections.unmodifiableMap(raw);
  }

  /** @return the protocol's {@code type} ({@code assistant}, {@code result}, ...) */
  public String getType() {
    return JsonAccess.string(raw, "type");
  }

  /** @return the session id the line carries, or null */
  public String getSessionId() {
    return JsonAccess.string(raw, "session_id");
  }

  /** @return the line's uuid, or null */
  public String getUuid() {
    return JsonAccess.string(raw, "uuid");
  }

  /** @return every field of the protocol line (read-only) */
  public Map<String, Object> getRaw() {
    return raw;
  }

  /** @return the protocol line as JSON */
  public String toJson() {
    return Json.write(raw);
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + toJson();
  }
}
