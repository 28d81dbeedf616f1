package io.sluice.metrics.scrape;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.StaleNaN;
import io.sluice.metrics.storage.Appender;
import io.sluice.metrics.storage.Storage;
import io.sluice.metrics.textparse.ExpositionParser;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Scrapes one target: parses the exposition, adds the target's labels, appends everything in one commit, records
 * {@code up}, {@code scrape_duration_seconds} and friends, and writes stale markers for series that disappeared
 * since the previous scrape (all of them when the scrape failed or the target went away).
 */
final class ScrapeLoop {
  private final Target target;
  private final Storage storage;
  private final Scraper scraper;
  private final Clock clock;
  private final boolean honorLabels;
  private final boolean honorTimestamps;
  private Set<Labels> previous = new HashSet<>();
  private long lastScrapeTs = Long.MIN_VALUE;
  /** Prometheus's --scrape.timestamp-tolerance: scheduler jitter this small is ironed out, to compress better. */
  static final long TIMESTAMP_TOLERANCE_MS = 2;

  ScrapeLoop(Target target, Storage storage, Scraper scraper, Clock clock, boolean honorLabels,
      boolean honorTimestamps) {
    this.target = target;
    this.storage = storage;
    this.scraper = scraper;
    this.clock = clock;
    this.honorLabels = honorLabels;
    this.honorTimestamps = honorTimestamps;
  }

  Target target() {
    return target;
  }

  /** One scrape at the clock's current time. */
  synchronized void scrapeOnce() {
    Instant start = clock.instant();
    long ts = start.toEpochMilli();
    if (lastScrapeTs != Long.MIN_VALUE) {
      long expected = lastScrapeTs + target.interval().toMillis();
      if (Math.abs(ts - expected) <= TIMESTAMP_TOLERANCE_MS) {
        ts = expected;
      }
    }
    lastScrapeTs = ts;
    long startNanos = System.nanoTime();
    List<ExpositionParser.Entry> entries = null;
    String error = null;
    try {
      Scraper.Response resp = scraper.fetch(target.url(), target.timeout(), target.http());
      entries = ExpositionParser.parse(resp.body(), resp.contentType());
    } catch (ExpositionParser.ParseError e) {
      error = e.getMessage();
    } catch (HttpTimeoutException e) {
      error = "Get \"" + target.url() + "\": context deadline exceeded";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      error = "scrape interrupted";
    } catch (Exception e) {
      error = "Get \"" + target.url() + "\": " + (e.getMessage() == null ? e.getClass().getSimpleName()
          : e.getMessage());
    }
    double duration = (System.nanoTime() - startNanos) / 1e9;
    Appender app = storage.appender();
    Set<Labels> current = new HashSet<>();
    int added = 0;
    if (entries != null) {
      for (ExpositionParser.Entry e : entries) {
        Labels l = withTargetLabels(e.labels());
        if (!current.add(l)) {
          // Prometheus drops duplicate series within one scrape.
          continue;
        }
        if (!previous.contains(l)) {
          added++;
        }
        long t = honorTimestamps && e.timestamp() != null ? e.timestamp() : ts;
        app.append(l, t, e.value());
      }
    }
    for (Labels gone : previous) {
      if (!current.contains(gone)) {
        app.append(gone, ts, StaleNaN.VALUE);
      }
    }
    previous = current;
    int scraped = entries == null ? 0 : entries.size();
    report(app, "up", ts, entries == null ? 0 : 1);
    report(app, "scrape_duration_seconds", ts, duration);
    report(app, "scrape_samples_scraped", ts, scraped);
    report(app, "scrape_samples_post_metric_relabeling", ts, current.size());
    report(app, "scrape_series_added", ts, added);
    app.commit();
    target.report(error == null ? Target.Health.UP : Target.Health.DOWN, error, start, duration);
  }

  private void report(Appender app, String name, long ts, double v) {
    app.append(target.labels().toBuilder().set(Labels.METRIC_NAME, name).build(), ts, v);
  }

  /**
   * Target labels win over scraped ones; a scraped label they replace is kept as {@code exported_<name>}, unless
   * honor_labels says the scraped labels win.
   */
  Labels withTargetLabels(Labels scraped) {
    Labels.Builder b = scraped.toBuilder();
    Labels tl = target.labels();
    for (int i = 0; i < tl.size(); i++) {
      String name = tl.name(i);
      String existing = scraped.get(name);
      if (!existing.isEmpty()) {
        if (honorLabels) {
          continue;
        }
        b.set("exported_" + name, existing);
      }
      b.set(name, tl.value(i));
    }
    return b.build();
  }

  /** The target went away: end every series it had, so queries stop seeing them at once. */
  synchronized void stop() {
    if (previous.isEmpty()) {
      return;
    }
    long ts = clock.millis();
    Appender app = storage.appender();
    for (Labels l : previous) {
      app.append(l, ts, StaleNaN.VALUE);
    }
    for (String n : List.of("up", "scrape_duration_seconds", "scrape_samples_scraped",
        "scrape_samples_post_metric_relabeling", "scrape_series_added")) {
      app.append(target.labels().toBuilder().set(Labels.METRIC_NAME, n).build(), ts, StaleNaN.VALUE);
    }
    app.commit();
    previous = new HashSet<>();
  }
}
