package nexus.io.agent.sdk.hook;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** Callbacks for the tool names a matcher selects ({@code "Write"}, {@code "Bash|Edit"}, null: all). */
public final class HookMatcher {
  private final String matcher;
  private final List<HookCallback> hooks;
  private final Integer timeoutSeconds;

  /**
   * @param matcher the tool-name pattern, or null for every tool
   * @param timeoutSeconds how long dcl waits for the callbacks, or null for its default
   * @param hooks the callbacks, run in order
   */
  public HookMatcher(String matcher, Integer timeoutSeconds, HookCallback... hooks) {
    this.matcher = matcher;
    this.timeoutSeconds = timeoutSeconds;
    this.hooks = Collections.unmodifiableList(new ArrayList<HookCallback>(Arrays.asList(hooks)));
  }

  /** @return the tool-name pattern, or null */
  public String getMatcher() {
    return matcher;
  }

  /** @return the callbacks */
  public List<HookCallback> getHooks() {
    return hooks;
  }

  /** @return the timeout in seconds, or null */
  public Integer getTimeoutSeconds() {
    return timeoutSeconds;
  }
}
