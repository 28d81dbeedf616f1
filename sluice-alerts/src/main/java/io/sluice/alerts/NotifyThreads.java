package io.sluice.alerts;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads that run group flushes, one of them the timer at any time ({@code AlertRouter.runTimer}): an idle
 * thread takes the next flush, a new one starts only when none is idle,
 * up to {@code max}, and beyond that flushes queue. A plain {@link ThreadPoolExecutor} with {@code max} core threads
 * starts a new thread for each of the first {@code max} flushes even when one sits idle, and starting a thread
 * delayed a notification by one to three milliseconds on a busy two-core machine (measured in
 * {@code AlertRouterBenchmark}); idle threads still go away after a minute.
 */
final class NotifyThreads extends ThreadPoolExecutor {
  private NotifyThreads(int max, Queue queue, ThreadFactory threads) {
    super(0, max, 60, TimeUnit.SECONDS, queue, threads, (r, pool) -> {
      if (pool.isShutdown()) {
        throw new RejectedExecutionException("notification threads shut down");
      }
      queue.force(r);
    });
  }

  static NotifyThreads create(int max, ThreadFactory threads) {
    return create(max, 0, threads);
  }

  /**
   * A pool that keeps {@code kept} threads however long they sit idle, started now. The router keeps two: the timer
   * and the one it hands the timer's role to when a flush is due. With none kept, the spare went after an idle
   * minute, and the next notification (notifications are often minutes apart) waited for a thread to start on its
   * path.
   */
  static NotifyThreads create(int max, int kept, ThreadFactory threads) {
    Queue queue = new Queue();
    NotifyThreads pool = new NotifyThreads(max, queue, threads);
    queue.pool = pool;
    if (kept > 0) {
      pool.setCorePoolSize(kept);
      pool.prestartAllCoreThreads();
    }
    return pool;
  }

  /**
   * Refuses a flush (so that the executor starts a thread for it) while no thread is idle and fewer than the maximum
   * run; the executor's own rejection handler then queues it ({@link #force}) when the maximum is reached.
   */
  private static final class Queue extends LinkedBlockingQueue<Runnable> {
    private volatile NotifyThreads pool;

    @Override
    public boolean offer(Runnable r) {
      NotifyThreads p = pool;
      if (p != null && p.getPoolSize() < p.getMaximumPoolSize() && p.getPoolSize() - p.getActiveCount() <= size()) {
        return false;
      }
      return super.offer(r);
    }

    void force(Runnable r) {
      super.offer(r);
    }
  }
}
