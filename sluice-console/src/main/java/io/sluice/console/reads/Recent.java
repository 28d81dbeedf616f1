package io.sluice.console.reads;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * A value read from upstream (Kafka's Admin API, Connect, the registry) that may be shown again for a short while: at
 * most one read per {@code ttl}, and callers that arrive while a read is going on wait for that read instead of
 * starting their own. A console refreshed by several people, or a page whose parts read the same thing, then costs
 * the upstream one read, not one per request. A failed read is not kept: the next caller reads again.
 *
 * <p>With a {@code stale} window and an executor, a value past its TTL but within the window is answered at once
 * while one read in the background replaces it (what a page that refreshes every few seconds wants: an answer now,
 * at most one refresh old); past the window a caller waits for a fresh read, as without one.
 */
public final class Recent<T> {
  /** A read that may throw what the upstream's client throws. */
  @FunctionalInterface
  public interface Read<T> {
    T read() throws Exception;
  }

  private final Duration ttl;
  private final Duration stale;
  private final Executor background;
  private final Clock clock;
  private final Read<T> read;
  private CompletableFuture<T> current;
  private long readAtMillis;
  private boolean refreshing;

  public Recent(Duration ttl, Clock clock, Read<T> read) {
    this(ttl, Duration.ZERO, null, clock, read);
  }

  /** As above, answering a value up to {@code ttl + stale} old at once while {@code background} reads anew. */
  public Recent(Duration ttl, Duration stale, Executor background, Clock clock, Read<T> read) {
    this.ttl = ttl;
    this.stale = stale;
    this.background = background;
    this.clock = clock;
    this.read = read;
  }

  /** The value of a read no older than the TTL (or of the read going on), reading now when there is none. */
  public T get() throws Exception {
    CompletableFuture<T> mine;
    boolean reader = false;
    synchronized (this) {
      long now = clock.millis();
      long age = now - readAtMillis;
      boolean usable = current != null && !current.isCompletedExceptionally();
      if (usable && current.isDone() && age > ttl.toMillis() && age <= ttl.toMillis() + stale.toMillis()
          && background != null) {
        if (!refreshing) {
          refreshing = true;
          background.execute(this::refresh);
        }
      } else if (!usable || current.isDone() && age > ttl.toMillis()) {
        current = new CompletableFuture<>();
        readAtMillis = now;
        reader = true;
      }
      mine = current;
    }
    if (reader) {
      try {
        mine.complete(read.read());
      } catch (Exception | Error e) {
        mine.completeExceptionally(e);
      }
    }
    try {
      return mine.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception x) {
        throw x;
      }
      if (e.getCause() instanceof Error x) {
        throw x;
      }
      throw new CompletionException(e.getCause());
    }
  }

  private void refresh() {
    long started = clock.millis();
    try {
      T value = read.read();
      synchronized (this) {
        current = CompletableFuture.completedFuture(value);
        readAtMillis = started;
      }
    } catch (Exception | Error e) {
      // The value shown stays until its window ends; then a caller reads and sees the error itself.
    } finally {
      synchronized (this) {
        refreshing = false;
      }
    }
  }

  /** Forgets the value, so that the next caller reads (after an action that changed what it shows). */
  public synchronized void forget() {
    current = null;
  }
}
