package nexus.io.agent.sdk.message;

import java.util.Map;
import nexus.io.agent.sdk.json.JsonAccess;

/** Text the model wrote. */
public final class TextBlock extends ContentBlock {
  /** @param raw the block as parsed */
  public TextBlock(Map<String, Object> raw) {
    super(raw);
  }

  /** @return the text */
  public String getText() {
    String t = JsonAccess.string(getRaw(), "text");
    return t == null ? "" : t;
  }
}
