package nexus.io.agent.sdk.message;

import java.util.Map;
import nexus.io.agent.sdk.json.JsonAccess;

/** The model's thinking, with its signature. */
public final class ThinkingBlock extends ContentBlock {
  /** @param raw the block as parsed */
  public ThinkingBlock(Map<String, Object> raw) {
    super(raw);
  }

  /** @return the thinking text */
  public String getThinking() {
    String t = JsonAccess.string(getRaw(), "thinking");
    return t == null ? "" : t;
  }

  /** @return the signature, or an empty string */
  public String getSignature() {
    String t = JsonAccess.string(getRaw(), "signature");
    return t == null ? "" : t;
  }
}
