package nexus.io.agent.sdk;

import static nexus.io.agent.sdk.TestSupport.file;
import static nexus.io.agent.sdk.TestSupport.opts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import nexus.io.agent.sdk.message.ResultMessage;
import nexus.io.agent.sdk.permission.PermissionResult;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Many sessions in one JVM: one stalled callback holds up only its own session. */
class ConcurrencyTest {
  private static final int SESSIONS = 100;

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void hundredSessionsOneSlowCallbackStallsNone(TransportKind kind) throws Exception {
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch slowAsked = new CountDownLatch(1);
    final CountDownLatch othersDone = new CountDownLatch(SESSIONS - 1);
    ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
    List<Future<ResultMessage>> results = new ArrayList<Future<ResultMessage>>();
    try {
      for (int i = 0; i < SESSIONS; i++) {
        final boolean slow = i == 0;
        final Path own = Files.createDirectory(dir.resolve("s" + i));
        final AgentOptions o =
            opts(kind, own)
                .canUseTool(
                    (tool, input, ctx) -> {
                      if (slow) {
                        slowAsked.countDown();
                        // Held until every other session has finished its turn.
                        release.await(120, TimeUnit.SECONDS);
                      }
                      return PermissionResult.allow();
                    });
        results.add(
            pool.submit(
                () -> {
                  ResultMessage r = Agent.query("FAKE_WRITE out.txt", o);
                  if (!slow) {
                    othersDone.countDown();
                  }
                  return r;
                }));
      }
      assertTrue(slowAsked.await(120, TimeUnit.SECONDS), "the slow session reached its callback");
      assertTrue(othersDone.await(300, TimeUnit.SECONDS), "the other 99 finished while one callback was stalled");
      assertFalse(results.get(0).isDone(), "the slow session is still waiting for its answer");
      assertFalse(file(dir.resolve("s0"), "out.txt").exists());
      release.countDown();
      for (int i = 0; i < SESSIONS; i++) {
        ResultMessage r = results.get(i).get(120, TimeUnit.SECONDS);
        assertFalse(r.isError(), "session " + i + ": " + r);
        assertTrue(file(dir.resolve("s" + i), "out.txt").exists(), "session " + i + " wrote its file");
      }
      assertEquals(SESSIONS, results.size());
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }
}
