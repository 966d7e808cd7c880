package nexus.io.agent.sdk.message;

import java.util.List;
import java.util.Map;
import nexus.io.agent.sdk.json.JsonAccess;

/** What the model said: one content block per line, blocks of one response share an id. */
public final class AssistantMessage extends Message {
  private final List<ContentBlock> content;

  /**
   * @param raw the parsed protocol line
   * @param content its content blocks
   */
  public AssistantMessage(Map<String, Object> raw, List<ContentBlock> content) {
    super(raw);
    this.content = content;
  }

  /** @return the content blocks */
  public List<ContentBlock> getContent() {
    return content;
  }

  /** @return the text blocks' text, joined */
  public String getText() {
    StringBuilder sb = new StringBuilder();
    for (ContentBlock b : content) {
      if (b instanceof TextBlock) {
        sb.append(((TextBlock) b).getText());
      }
    }
    return sb.toString();
  }

  private Map<String, Object> message() {
    return JsonAccess.object(getRaw(), "message");
  }

  /** @return the model that answered */
  public String getModel() {
    return JsonAccess.string(message(), "model");
  }

  /** @return the model response's id (shared by its blocks) */
  public String getMessageId() {
    return JsonAccess.string(message(), "id");
  }

  /** @return the tool call this message belongs to (a sub-agent), or null */
  public String getParentToolUseId() {
    return JsonAccess.string(getRaw(), "parent_tool_use_id");
  }

  /** @return the error class when the model call failed ({@code rate_limit}, ...), or null */
  public String getError() {
    return JsonAccess.string(getRaw(), "error");
  }
}
