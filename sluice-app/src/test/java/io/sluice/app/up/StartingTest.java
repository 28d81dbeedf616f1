package io.sluice.app.up;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StartingTest {
  @Test
  void startsAfterWhatItWaitsForAndThrowsWhatTheStartThrew() {
    CompletableFuture<Void> broker = new CompletableFuture<>();
    List<String> order = new CopyOnWriteArrayList<>();
    Starting<String> registry = Starting.after(broker, "test-registry", () -> {
      order.add("registry");
      return "registry";
    }, r -> { });
    order.add("broker");
    broker.complete(null);
    assertEquals("registry", registry.join());
    assertEquals(List.of("broker", "registry"), order);

    IllegalStateException refused = new IllegalStateException("port in use");
    Starting<String> failing = Starting.now("test-failing", () -> {
      throw refused;
    }, r -> { });
    assertSame(refused, assertThrows(IllegalStateException.class, failing::join));
  }

  @Test
  void whatIsAbandonedIsStoppedOnceStartedAndWhatWasJoinedIsLeftToThePlane() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    Starting<String> slow = Starting.now("test-slow", () -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return "slow";
    }, s -> stopped.countDown());
    slow.abandon();
    release.countDown();
    assertTrue(stopped.await(30, TimeUnit.SECONDS), "stopped as soon as its start returned");

    List<String> stops = new CopyOnWriteArrayList<>();
    Starting<String> joined = Starting.now("test-joined", () -> "joined", stops::add);
    joined.join();
    joined.abandon();
    assertEquals(List.of(), stops, "the plane stops it with the rest of what it started");
  }
}
