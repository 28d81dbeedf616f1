package io.sluice.ui.reads;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A value read from upstream (Kafka's Admin API, Connect, the registry) that may be shown again for a short while: at
 * most one read per {@code ttl}, and callers that arrive while a read is going on wait for that read instead of
 * starting their own. A console refreshed by several people, or a page whose parts read the same thing, then costs
 * the upstream one read, not one per request. A failed read is not kept: the next caller reads again.
 */
public final class Recent<T> {
  /** A read that may throw what the upstream's client throws. */
  @FunctionalInterface
  public interface Read<T> {
    T read() throws Exception;
  }

  private final Duration ttl;
  private final Clock clock;
  private final Read<T> read;
  private CompletableFuture<T> current;
  private long readAtMillis;

  public Recent(Duration ttl, Clock clock, Read<T> read) {
    this.ttl = ttl;
    this.clock = clock;
    this.read = read;
  }

  /** The value of a read no older than the TTL (or of the read going on), reading now when there is none. */
  public T get() throws Exception {
    CompletableFuture<T> mine;
    boolean reader = false;
    synchronized (this) {
      long now = clock.millis();
      if (current == null || current.isCompletedExceptionally()
          || current.isDone() && now - readAtMillis > ttl.toMillis()) {
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

  /** Forgets the value, so that the next caller reads (after an action that changed what it shows). */
  public synchronized void forget() {
    current = null;
  }
}
