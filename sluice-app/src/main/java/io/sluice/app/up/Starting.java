package io.sluice.app.up;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A component starting in a thread of its own, beside what the plane starts meanwhile: joined when the plane needs
 * it, and, should the plane fail first, stopped as soon as its start returns (a start under way cannot be interrupted).
 */
final class Starting<T> {
  private final CompletableFuture<T> future;
  private final Consumer<T> stop;
  /** Joined: from then on the plane stops it with the rest of what it started. */
  private boolean taken;

  private Starting(CompletableFuture<T> future, Consumer<T> stop) {
    this.future = future;
    this.stop = stop;
  }

  /** Starts it now, in a daemon thread named {@code thread}. */
  static <T> Starting<T> now(String thread, Supplier<T> start, Consumer<T> stop) {
    return new Starting<>(CompletableFuture.supplyAsync(start, inThread(thread)), stop);
  }

  /** Starts it once {@code before} is done (whether or not it succeeded), in a daemon thread named {@code thread}. */
  static <T> Starting<T> after(CompletableFuture<?> before, String thread, Supplier<T> start, Consumer<T> stop) {
    return new Starting<>(before.handleAsync((v, e) -> start.get(), inThread(thread)), stop);
  }

  /** Waits for the start; what it threw is thrown here. */
  T join() {
    try {
      T started = future.join();
      taken = true;
      return started;
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  /** The plane gives up: unless joined already, the component is stopped once started, if it starts. */
  void abandon() {
    if (!taken) {
      future.thenAccept(stop);
    }
  }

  private static Executor inThread(String name) {
    return runnable -> {
      Thread t = new Thread(runnable, name);
      t.setDaemon(true);
      t.start();
    };
  }
}
