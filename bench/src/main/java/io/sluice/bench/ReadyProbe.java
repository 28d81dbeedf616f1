package io.sluice.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Waits for a server under measurement (ours or a reference binary) to answer {@code GET /-/ready} with 200. */
public final class ReadyProbe {
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  private ReadyProbe() {}

  /** Polls every 100 ms until ready; fails when {@code process} (if given) exits or the timeout passes. */
  public static void await(String url, Duration timeout, Process process) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (process != null && !process.isAlive()) {
        throw new IllegalStateException(url + ": the process exited with " + process.exitValue());
      }
      try {
        if (CLIENT.send(HttpRequest.newBuilder(URI.create(url + "/-/ready")).build(),
            HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // still starting
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(url + " not ready within " + timeout);
  }
}
