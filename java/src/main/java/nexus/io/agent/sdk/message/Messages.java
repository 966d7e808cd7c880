package nexus.io.agent.sdk.message;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import nexus.io.agent.sdk.json.JsonAccess;

/** Protocol lines to typed messages. */
public final class Messages {
  private Messages() {}

  /**
   * Types one parsed protocol line.
   *
   * @param data the parsed line
   * @return the message, or null for types not surfaced to users (legacy events, control lines,
   *     unknown types: skipped, as every SDK of the protocol does)
   */
  public static Message parse(Map<String, Object> data) {
    String type = JsonAccess.string(data, "type");
    if (type == null) {
      return null;
    }
    switch (type) {
      case "system":
        return new SystemMessage(data);
      case "assistant":
        return new AssistantMessage(data, blocks(JsonAccess.object(data, "message")));
      case "user":
        {
          Map<String, Object> message = JsonAccess.object(data, "message");
          Object content = message == null ? null : message.get("content");
          if (content instanceof String) {
            return new UserMessage(
                data, Collections.<ContentBlock>emptyList(), (String) content);
          }
          return new UserMessage(data, blocks(message), null);
        }
      case "result":
        return new ResultMessage(data);
      case "stream_event":
        return new StreamEvent(data);
      default:
        return null;
    }
  }

  @SuppressWarnings("unchecked")
  private static List<ContentBlock> blocks(Map<String, Object> message) {
    List<ContentBlock> out = new ArrayList<ContentBlock>();
    for (Object o : JsonAccess.array(message, "content")) {
      if (!(o instanceof Map)) {
        continue;
      }
      Map<String, Object> b = (Map<String, Object>) o;
      String type = JsonAccess.string(b, "type");
      if ("text".equals(type)) {
        out.add(new TextBlock(b));
      } else if ("thinking".equals(type)) {
        out.add(new ThinkingBlock(b));
      } else if ("tool_use".equals(type) || "server_tool_use".equals(type)) {
        out.add(new ToolUseBlock(b));
      } else if ("tool_result".equals(type)) {
        out.add(new ToolResultBlock(b));
      } else {
        out.add(new OtherBlock(b));
      }
    }
    return Collections.unmodifiableList(out);
  }
}
