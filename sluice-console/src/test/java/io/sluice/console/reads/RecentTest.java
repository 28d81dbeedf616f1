package io.sluice.console.reads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RecentTest {
  /** A clock the test moves. */
  private static final class Moving extends Clock {
    volatile long millis = 1_000_000;

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis);
    }
  }

  @Test
  void readsOncePerTtlAndAgainAfterIt() throws Exception {
    Moving clock = new Moving();
    AtomicInteger reads = new AtomicInteger();
    Recent<Integer> r = new Recent<>(Duration.ofSeconds(2), clock, reads::incrementAndGet);
    assertEquals(1, r.get());
    clock.millis += 1999;
    assertEquals(1, r.get(), "within the TTL: the same read");
    clock.millis += 2;
    assertEquals(2, r.get(), "past it: read again");
    r.forget();
    assertEquals(3, r.get(), "forgotten: read again at once");
  }

  @Test
  void callersDuringAReadShareIt() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger reads = new AtomicInteger();
    Recent<Integer> r = new Recent<>(Duration.ofSeconds(2), Clock.systemUTC(), () -> {
      started.countDown();
      release.await();
      return reads.incrementAndGet();
    });
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> answers = new ArrayList<>();
      answers.add(pool.submit(r::get));
      started.await();
      for (int i = 0; i < 3; i++) {
        answers.add(pool.submit(r::get));
      }
      Thread.sleep(100);
      release.countDown();
      for (Future<Integer> a : answers) {
        assertEquals(1, a.get());
      }
      assertEquals(1, reads.get(), "four callers, one read");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aFailedReadIsNotKept() throws Exception {
    AtomicInteger reads = new AtomicInteger();
    Recent<Integer> r = new Recent<>(Duration.ofSeconds(60), Clock.systemUTC(), () -> {
      if (reads.incrementAndGet() == 1) {
        throw new IllegalStateException("upstream down");
      }
      return reads.get();
    });
    assertEquals("upstream down", assertThrows(IllegalStateException.class, r::get).getMessage());
    assertEquals(2, r.get());
    assertEquals(2, r.get());
  }

  @Test
  void withinTheStaleWindowAnswersAtOnceAndReadsInTheBackground() throws Exception {
    Moving clock = new Moving();
    AtomicInteger reads = new AtomicInteger();
    List<Runnable> queued = new ArrayList<>();
    Recent<Integer> r = new Recent<>(Duration.ofSeconds(2), Duration.ofSeconds(10), queued::add, clock,
        reads::incrementAndGet);
    assertEquals(1, r.get());
    clock.millis += 5_000;
    assertEquals(1, r.get(), "past the TTL, within the window: the value now");
    assertEquals(1, r.get(), "one background read at a time");
    assertEquals(1, queued.size());
    queued.get(0).run();
    assertEquals(2, r.get(), "the background read replaced it");
    clock.millis += 13_000;
    assertEquals(3, r.get(), "past the window: a fresh read, waited for");
  }
}
