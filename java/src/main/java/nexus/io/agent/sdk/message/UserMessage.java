package nexus.io.agent.sdk.message;

import java.util.List;
import java.util.Map;
import nexus.io.agent.sdk.json.JsonAccess;

/** A user-side line: tool results, or a replayed prompt. */
public final class UserMessage extends Message {
  private final List<ContentBlock> content;
  private final String text;

  /**
   * @param raw the parsed protocol line
   * @param content its blocks (empty when the content was a plain string)
   * @param text the plain-string content, or null
   */
  public UserMessage(Map<String, Object> raw, List<ContentBlock> content, String text) {
    super(raw);
    this.content = content;
    this.text = text;
  }

  /** @return the content blocks (empty when the content was a plain string) */
  public List<ContentBlock> getContent() {
    return content;
  }

  /** @return the plain-string content, or the text of its text and tool-result blocks */
  public String getText() {
    if (text != null) {
      return text;
    }
    StringBuilder sb = new StringBuilder();
    for (ContentBlock b : content) {
      if (b instanceof TextBlock) {
        sb.append(((TextBlock) b).getText());
      } else if (b instanceof ToolResultBlock) {
        sb.append(((ToolResultBlock) b).getText());
      }
    }
    return sb.toString();
  }

  /** @return the tool call this message belongs to, or null */
  public String getParentToolUseId() {
    return JsonAccess.string(getRaw(), "parent_tool_use_id");
  }
}
