package nexus.io.agent.sdk.message;

import java.util.Map;

/** A content block of a type this SDK does not model; {@link #getRaw()} has it whole. */
public final class OtherBlock extends ContentBlock {
  /** @param raw the block as parsed */
  public OtherBlock(Map<String, Object> raw) {
    super(raw);
  }
}
