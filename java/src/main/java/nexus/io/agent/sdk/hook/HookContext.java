package nexus.io.agent.sdk.hook;

import java.util.Map;

/** Where a hook call came from. */
public final class HookContext {
  private final String callbackId;
  private final Map<String, Object> request;

  /**
   * @param callbackId the registered callback's id
   * @param request the whole {@code hook_callback} request
   */
  public HookContext(String callbackId, Map<String, Object> request) {
    this.callbackId = callbackId;
    this.request = request;
  }

  /** @return the registered callback's id */
  public String getCallbackId() {
    return callbackId;
  }

  /** @return the whole request as dcl sent it */
  public Map<String, Object> getRequest() {
    return request;
  }
}
