package nexus.io.agent.sdk.message;

import java.util.Map;
import nexus.io.agent.sdk.json.JsonAccess;

/** A {@code system} line: {@code init} (tools, model, MCP servers), retries, notices. */
public final class SystemMessage extends Message {
  /** @param raw the parsed protocol line */
  public SystemMessage(Map<String, Object> raw) {
    super(raw);
  }

  /** @return the subtype ({@code init}, {@code api_retry}, {@code informational}, ...) */
  public String getSubtype() {
    return JsonAccess.string(getRaw(), "subtype");
  }

  /** @return the whole line (same as {@link #getRaw()}) */
  public Map<String, Object> getData() {
    return getRaw();
  }
}
