package nexus.io.agent.sdk.message;

import java.util.List;
import java.util.Map;
import nexus.io.agent.sdk.json.JsonAccess;

/** The result of a tool call, as the model will read it. */
public final class ToolResultBlock extends ContentBlock {
  /** @param raw the block as parsed */
  public ToolResultBlock(Map<String, Object> raw) {
    super(raw);
  }

  /** @return the id of the call this answers */
  public String getToolUseId() {
    return JsonAccess.string(getRaw(), "tool_use_id");
  }

  /** @return the content: a string, or a list of content-block maps (MCP tools) */
  public Object getContent() {
    return getRaw().get("content");
  }

  /** @return whether the tool failed or was denied */
  public boolean isError() {
    return JsonAccess.bool(getRaw(), "is_error", false);
  }

  /** @return the content's text (text blocks joined) */
  public String getText() {
    Object c = getContent();
    if (c instanceof String) {
      return (String) c;
    }
    StringBuilder sb = new StringBuilder();
    if (c instanceof List) {
      for (Object item : (List<?>) c) {
        if (item instanceof Map) {
          Object t = ((Map<?, ?>) item).get("text");
          if (t instanceof String) {
            sb.append(t);
          }
        }
      }
    }
    return sb.toString();
  }
}
