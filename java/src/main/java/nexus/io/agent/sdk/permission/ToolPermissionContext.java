package nexus.io.agent.sdk.permission;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/** What else dcl says about a tool call it asks about. */
public final class ToolPermissionContext {
  private final String toolUseId;
  private final List<Map<String, Object>> suggestions;
  private final String blockedPath;
  private final String decisionReason;
  private final String agentId;
  private final Map<String, Object> request;

  /**
   * @param toolUseId the call's id
   * @param suggestions permission updates dcl suggests (protocol shape)
   * @param blockedPath the path that made the call ask, or null
   * @param decisionReason why the call asks, or null
   * @param agentId the sub-agent asking, or null
   * @param request the whole {@code can_use_tool} request
   */
  public ToolPermissionContext(
      String toolUseId,
      List<Map<String, Object>> suggestions,
      String blockedPath,
      String decisionReason,
      String agentId,
      Map<String, Object> request) {
    this.toolUseId = toolUseId;
    this.suggestions = suggestions;
    this.blockedPath = blockedPath;
    this.decisionReason = decisionReason;
    this.agentId = agentId;
    this.request = request;
  }

  /** @return the call's id */
  public String getToolUseId() {
    return toolUseId;
  }

  /** @return suggested permission updates (maybe empty) */
  public List<Map<String, Object>> getSuggestions() {
    return suggestions == null ? Collections.<Map<String, Object>>emptyList() : suggestions;
  }

  /** @return the path that made the call ask, or null */
  public String getBlockedPath() {
    return blockedPath;
  }

  /** @return why the call asks, or null */
  public String getDecisionReason() {
    return decisionReason;
  }

  /** @return the sub-agent asking, or null */
  public String getAgentId() {
    return agentId;
  }

  /** @return the whole request as dcl sent it */
  public Map<String, Object> getRequest() {
    return request;
  }
}
