package nexus.io.agent.sdk.message;

import java.util.Collections;
import java.util.Map;
import nexus.io.agent.sdk.json.JsonAccess;

/**
 * A block of a message's content: {@link TextBlock}, {@link ThinkingBlock}, {@link
 * ToolUseBlock}, {@link ToolResultBlock}, or {@link OtherBlock} for types this SDK does not
 * model (images, ...).
 */
public abstract class ContentBlock {
  private final Map<String, Object> raw;

  /** @param raw the block as parsed */
  protected ContentBlock(Map<String, Object> raw) {
    this.raw = Collections.unmodifiableMap(raw);
  }

  /** @return the block's {@code type} */
  public String getType() {
    return JsonAccess.string(raw, "type");
  }

  /** @return every field of the block (read-only) */
  public Map<String, Object> getRaw() {
    return raw;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + raw;
  }
}
