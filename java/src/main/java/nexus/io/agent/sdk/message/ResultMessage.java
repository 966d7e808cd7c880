package nexus.io.agent.sdk.message;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import nexus.io.agent.sdk.json.JsonAccess;

/** The end of a turn: exactly one per prompt, also after errors and interrupts. */
public final class ResultMessage extends Message {
  /** @param raw the parsed protocol line */
  public ResultMessage(Map<String, Object> raw) {
    super(raw);
  }

  /** @return {@code success}, {@code error_max_turns}, {@code error_during_execution}, ... */
  public String getSubtype() {
    return JsonAccess.string(getRaw(), "subtype");
  }

  /** @return whether the turn failed */
  public boolean isError() {
    return JsonAccess.bool(getRaw(), "is_error", false);
  }

  /** @return the final answer's text (or the error's), possibly null */
  public String getResult() {
    return JsonAccess.string(getRaw(), "result");
  }

  /** @return model calls in the turn */
  public long getNumTurns() {
    return JsonAccess.number(getRaw(), "num_turns", 0);
  }

  /** @return wall time of the turn */
  public long getDurationMs() {
    return JsonAccess.number(getRaw(), "duration_ms", 0);
  }

  /** @return time spent in model API calls */
  public long getDurationApiMs() {
    return JsonAccess.number(getRaw(), "duration_api_ms", 0);
  }

  /** @return the session's cost so far, in USD */
  public double getTotalCostUsd() {
    return JsonAccess.decimal(getRaw(), "total_cost_usd", 0);
  }

  /** @return token usage of the turn, or null */
  public Map<String, Object> getUsage() {
    return JsonAccess.object(getRaw(), "usage");
  }

  /** @return the structured output when a JSON schema was set, else null */
  public Object getStructuredOutput() {
    return getRaw().get("structured_output");
  }

  /** @return why the turn stopped ({@code completed}, {@code interrupted}, ...), or null */
  public String getTerminalReason() {
    return JsonAccess.string(getRaw(), "terminal_reason");
  }

  /**
   * @return why the session could not start ({@code resume_target_not_found}, ...), on the error
   *     result of a session that did not start; null otherwise
   */
  public String getStartupFailureReason() {
    return JsonAccess.string(getRaw(), "startup_failure_reason");
  }

  /**
   * @return the tool calls refused in this turn (by rules, mode, hooks or {@code canUseTool}),
   *     each with {@code tool_name}, {@code tool_use_id}, {@code tool_input}
   */
  @SuppressWarnings("unchecked")
  public List<Map<String, Object>> getPermissionDenials() {
    List<Map<String, Object>> out = new ArrayList<Map<String, Object>>();
    for (Object o : JsonAccess.array(getRaw(), "permission_denials")) {
      if (o instanceof Map) {
        out.add((Map<String, Object>) o);
      }
    }
    return Collections.unmodifiableList(out);
  }

  /** @return error texts of a failed turn */
  public List<String> getErrors() {
    List<String> out = new ArrayList<String>();
    for (Object o : JsonAccess.array(getRaw(), "errors")) {
      out.add(String.valueOf(o));
    }
    return Collections.unmodifiableList(out);
  }
}
