package io.sluice.http.web;

import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * Checks a web configuration's certificate, key and client CA files every few seconds and reloads them when one
 * changed, so that a renewed certificate is served without a restart. A reload that fails (a half-written file is the
 * usual cause) keeps the old certificate and is tried again at the next check.
 */
public final class TlsFileWatch implements AutoCloseable {
  /** Loads the files again; throws when they cannot be read. */
  @FunctionalInterface
  public interface Reload {
    void run() throws Exception;
  }

  private final ScheduledExecutorService watcher;
  private volatile List<FileTime> seen;

  private TlsFileWatch(WebConfig.Tls tls, String thread, Reload reload) {
    this.seen = tls.fileTimes();
    this.watcher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, thread);
      t.setDaemon(true);
      return t;
    });
    watcher.scheduleWithFixedDelay(() -> {
      List<FileTime> now = tls.fileTimes();
      if (now.equals(seen)) {
        return;
      }
      try {
        reload.run();
        seen = now;
      } catch (Exception e) {
        LoggerFactory.getLogger(TlsFileWatch.class).warn("reloading TLS files {} ({}) failed: {}", tls.certFile(),
            thread, e.getMessage());
      }
    }, 5, 5, TimeUnit.SECONDS);
  }

  /** Starts watching the files as they are now, on a daemon thread of this name. */
  public static TlsFileWatch start(WebConfig.Tls tls, String thread, Reload reload) {
    return new TlsFileWatch(tls, thread, reload);
  }

  @Override
  public void close() {
    watcher.shutdownNow();
  }
}
