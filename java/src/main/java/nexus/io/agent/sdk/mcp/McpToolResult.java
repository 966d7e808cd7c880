package nexus.io.agent.sdk.mcp;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What an in-JVM tool returns: MCP content blocks and an error flag. */
public final class McpToolResult {
  private final List<Map<String, Object>> content;
  private final boolean error;

  /**
   * @param content MCP content blocks ({@code {"type": "text", "text": ...}}, {@code {"type":
   *     "image", "data": ..., "mimeType": ...}})
   * @param error whether the call failed
   */
  public McpToolResult(List<Map<String, Object>> content, boolean error) {
    this.content = Collections.unmodifiableList(new ArrayList<Map<String, Object>>(content));
    this.error = error;
  }

  /**
   * @param text the text
   * @return a successful text result
   */
  public static McpToolResult text(String text) {
    return new McpToolResult(Collections.singletonList(textBlock(text)), false);
  }

  /**
   * @param text what went wrong
   * @return a failed result the model reads
   */
  public static McpToolResult error(String text) {
    return new McpToolResult(Collections.singletonList(textBlock(text)), true);
  }

  static Map<String, Object> textBlock(String text) {
    Map<String, Object> b = new LinkedHashMap<String, Object>();
    b.put("type", "text");
    b.put("text", text);
    return b;
  }

  /** @return the content blocks */
  public List<Map<String, Object>> getContent() {
    return content;
  }

  /** @return whether the call failed */
  public boolean isError() {
    return error;
  }
}
