package io.sluice.console.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.ops.dlq.ReplayResult;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Replays beside the request: their percentage while they run, their result or failure after, one per group. */
class ReplayJobsTest {
  private static ReplayResult result(long replayed) {
    return new ReplayResult("t", "g", false, replayed, 0, 0, 0, 0, Map.of("orders", replayed), Map.of(0, 0L),
        Map.of(0, replayed), true, null);
  }

  private static ReplayJobs.Status await(ReplayJobs jobs, String id, ReplayJobs.State state) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      ReplayJobs.Status s = jobs.get(id).orElseThrow();
      if (s.state() == state) {
        return s;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("never " + state + ": " + jobs.get(id));
  }

  @Test
  void aRunningReplayShowsHowFarItGotThenItsResult() throws Exception {
    try (ReplayJobs jobs = new ReplayJobs(Clock.systemUTC())) {
      CountDownLatch reported = new CountDownLatch(1);
      CountDownLatch finish = new CountDownLatch(1);
      ReplayJobs.Status started = jobs.start("t", "g", "record 0:1", "ops", progress -> {
        progress.update(25, 200);
        reported.countDown();
        try {
          finish.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        progress.update(200, 200);
        return result(7);
      });
      assertTrue(reported.await(10, TimeUnit.SECONDS));
      ReplayJobs.Status running = jobs.get(started.id()).orElseThrow();
      assertEquals(ReplayJobs.State.RUNNING, running.state());
      assertEquals(12, running.percent(), "25 of 200");
      assertEquals(200, running.total());
      assertTrue(assertThrows(ReplayJobs.Busy.class, () -> jobs.start("t", "g", "again", "other", p -> result(0)))
          .getMessage().contains("is running in group g"), "one replay per group at a time");
      finish.countDown();
      ReplayJobs.Status done = await(jobs, started.id(), ReplayJobs.State.DONE);
      assertEquals(100, done.percent());
      assertEquals(7, done.result().replayed());
      assertEquals(1, jobs.of("t").size());
    }
  }

  @Test
  void aFailedReplaySaysWhyAndFreesItsGroup() throws Exception {
    try (ReplayJobs jobs = new ReplayJobs(Clock.systemUTC())) {
      ReplayJobs.Status s = jobs.start("t", "g", "group", "ops", p -> {
        throw new IllegalStateException("producing to the target failed: boom");
      });
      assertEquals("producing to the target failed: boom", await(jobs, s.id(), ReplayJobs.State.FAILED).error());
      ReplayJobs.Status again = jobs.start("t", "g", "group", "ops", p -> result(1));
      await(jobs, again.id(), ReplayJobs.State.DONE);
      assertEquals(again.id(), jobs.of("t").get(0).id(), "newest first");
    }
  }

  @Test
  void onlyTheNewestFinishedJobsAreKept() throws Exception {
    try (ReplayJobs jobs = new ReplayJobs(Clock.systemUTC())) {
      String first = null;
      String last = null;
      for (int i = 0; i < ReplayJobs.KEPT + 5; i++) {
        last = jobs.start("t", "g" + i, "x", "ops", p -> result(0)).id();
        first = first == null ? last : first;
        await(jobs, last, ReplayJobs.State.DONE);
      }
      assertEquals(ReplayJobs.KEPT, jobs.of("t").size());
      assertTrue(jobs.get(first).isEmpty());
      assertTrue(jobs.get(last).isPresent());
    }
  }
}
