package nexus.io.agent.sdk.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import nexus.io.agent.sdk.json.Json;
import org.junit.jupiter.api.Test;

class ResultMessageTest {
  private static ResultMessage result(String extra) {
    Message m =
        Messages.parse(
            Json.parseObject(
                "{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,"
                    + "\"num_turns\":0,\"session_id\":\"s\",\"terminal_reason\":\"session_unavailable\""
                    + extra
                    + "}"));
    assertTrue(m instanceof ResultMessage, String.valueOf(m));
    return (ResultMessage) m;
  }

  @Test
  void aSessionThatCouldNotStartSaysWhy() {
    ResultMessage r = result(",\"startup_failure_reason\":\"resume_target_not_found\"");
    assertEquals("resume_target_not_found", r.getStartupFailureReason());
    assertEquals("session_unavailable", r.getTerminalReason());
  }

  @Test
  void aResultWithoutAReasonHasNone() {
    assertNull(result("").getStartupFailureReason());
  }
}
