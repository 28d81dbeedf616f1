package io.sluice.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Which thread runs a flush: an idle one when there is one, a new one up to the maximum, else the queue. */
class NotifyThreadsTest {

  @Test
  void anIdleThreadIsReusedRatherThanANewOneStarted() throws Exception {
    NotifyThreads pool = NotifyThreads.create(32, Executors.defaultThreadFactory());
    try {
      for (int i = 0; i < 20; i++) {
        CountDownLatch done = new CountDownLatch(1);
        pool.execute(done::countDown);
        assertTrue(done.await(10, TimeUnit.SECONDS));
        // The worker counts as idle once it is back waiting for work.
        for (int spin = 0; spin < 1000 && pool.getActiveCount() > 0; spin++) {
          Thread.sleep(1);
        }
      }
      assertEquals(1, pool.getLargestPoolSize());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void busyThreadsGetCompanyUpToTheMaximumThenFlushesQueue() throws Exception {
    NotifyThreads pool = NotifyThreads.create(3, Executors.defaultThreadFactory());
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch ran = new CountDownLatch(5);
    try {
      for (int i = 0; i < 5; i++) {
        pool.execute(() -> {
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          ran.countDown();
        });
      }
      assertEquals(3, pool.getPoolSize());
      assertEquals(2, pool.getQueue().size());
      release.countDown();
      assertTrue(ran.await(10, TimeUnit.SECONDS), "queued flushes ran");
      assertEquals(3, pool.getLargestPoolSize());
    } finally {
      pool.shutdownNow();
    }
  }
}
