package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** What the worker's stop waits for, and what the data plane counts while it stops. */
class WorkerStopTest {
  @Test
  void theWorkerWaitsHalfAMinuteForItsTasksTogetherUnlessTheOperatorSaysOtherwise() {
    assertEquals("30000", ConnectRuntime.builder().workerConfig().get("task.shutdown.graceful.timeout.ms"));
    assertEquals("5000", ConnectRuntime.builder().workerProperty("task.shutdown.graceful.timeout.ms", "5000")
        .workerConfig().get("task.shutdown.graceful.timeout.ms"));
  }

  @Test
  void aTaskThreadIsCountedWhileItRuns() throws Exception {
    int before = ConnectRuntime.taskThreads();
    CountDownLatch end = new CountDownLatch(1);
    Thread task = new Thread(() -> {
      try {
        end.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "task-thread-orders-source-0");
    task.start();
    assertEquals(before + 1, ConnectRuntime.taskThreads());
    end.countDown();
    task.join();
    assertEquals(before, ConnectRuntime.taskThreads());
  }
}
