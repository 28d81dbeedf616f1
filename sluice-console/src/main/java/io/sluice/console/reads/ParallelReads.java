package io.sluice.console.reads;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Reads the console starts side by side (Connect, Kafka, the registry) and waits for. */
public final class ParallelReads {
  private ParallelReads() {}

  /**
   * The read's value; its own exception when it failed, not the CompletionException around it, so that a page answers
   * with what Connect, Kafka or the registry said.
   */
  public static <T> T join(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }
}
