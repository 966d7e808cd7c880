package nexus.io.agent.sdk.message;

import java.util.Map;
import nexus.io.agent.sdk.json.JsonAccess;

/**
 * A raw Messages-API stream event ({@code content_block_delta}, ...); only sent with {@code
 * includePartialMessages(true)}.
 */
public final class StreamEvent extends Message {
  /** @param raw the parsed protocol line */
  public StreamEvent(Map<String, Object> raw) {
    super(raw);
  }

  /** @return the event ({@code {"type": "content_block_delta", ...}}) */
  public Map<String, Object> getEvent() {
    return JsonAccess.object(getRaw(), "event");
  }

  /** @return the event's type */
  public String getEventType() {
    return JsonAccess.string(getEvent(), "type");
  }

  /** @return the text of a {@code text_delta}, else null */
  public String getTextDelta() {
    Map<String, Object> delta = JsonAccess.object(getEvent(), "delta");
    return "text_delta".equals(JsonAccess.string(delta, "type"))
        ? JsonAccess.string(delta, "text")
        : null;
  }
}
