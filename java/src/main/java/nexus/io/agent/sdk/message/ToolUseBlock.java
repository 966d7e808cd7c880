package nexus.io.agent.sdk.message;

import java.util.Collections;
import java.util.Map;
import nexus.io.agent.sdk.json.JsonAccess;

/** A tool call the model made. */
public final class ToolUseBlock extends ContentBlock {
  /** @param raw the block as parsed */
  public ToolUseBlock(Map<String, Object> raw) {
    super(raw);
  }

  /** @return the call's id (its result's {@code tool_use_id}) */
  public String getId() {
    return JsonAccess.string(getRaw(), "id");
  }

  /** @return the tool's name ({@code Bash}, {@code mcp__app__server_time}, ...) */
  public String getName() {
    return JsonAccess.string(getRaw(), "name");
  }

  /** @return the call's input */
  public Map<String, Object> getInput() {
    Map<String, Object> in = JsonAccess.object(getRaw(), "input");
    return in == null ? Collections.<String, Object>emptyMap() : in;
  }
}
