package io.sluice.metrics.scrape;

import io.sluice.client.ClientOptions;
import io.sluice.metrics.config.Config;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.storage.Storage;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one scrape loop per target of the configuration. Each target is offset within its interval by a hash of its
 * URL, as Prometheus spreads its scrapes, so that targets do not all fire at once.
 */
public final class ScrapeManager implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ScrapeManager.class);

  private final Storage storage;
  private final Scraper scraper;
  private final Clock clock;
  private final ScheduledExecutorService executor;
  private final List<Running> running = new CopyOnWriteArrayList<>();

  private record Running(Identity id, ScrapeLoop loop, ScheduledFuture<?> future) {}

  /** What makes two targets the same loop: a target whose identity stays across a change keeps running untouched. */
  private record Identity(String job, String url, Labels labels, Duration interval,
      Duration timeout, ClientOptions http, boolean honorLabels,
      boolean honorTimestamps) {}

  public ScrapeManager(Storage storage, Clock clock) {
    this(storage, new HttpScraper(), clock);
  }

  public ScrapeManager(Storage storage, Scraper scraper, Clock clock) {
    this.storage = storage;
    this.scraper = scraper;
    this.clock = clock;
    this.executor = Executors.newScheduledThreadPool(2, r -> {
      Thread t = new Thread(r, "sluice-metrics-scrape");
      t.setDaemon(true);
      return t;
    });
  }

  /** Targets of a configuration, in configuration order. */
  public static List<Target> targetsOf(Config config) {
    List<Target> out = new ArrayList<>();
    for (Config.ScrapeConfig sc : config.scrapeConfigs()) {
      for (Config.StaticConfig st : sc.staticConfigs()) {
        for (String address : st.targets()) {
          Labels.Builder b = Labels.builder().set("job", sc.jobName()).set("instance", address);
          st.labels().forEach(b::set);
          Labels labels = b.build();
          Labels discovered = Labels.builder().set("__address__", address).set("__metrics_path__", sc.metricsPath())
              .set("__scheme__", sc.scheme()).set("job", sc.jobName()).build();
          String url = sc.scheme() + "://" + address + sc.metricsPath();
          out.add(new Target(sc.jobName(), url, labels, discovered, sc.scrapeInterval(), sc.scrapeTimeout(),
              sc.http()));
        }
      }
    }
    return out;
  }

  /**
   * Runs the configuration's targets: a target that was running already goes on as it was; targets that went away get
   * stale markers, as in Prometheus when service discovery drops a target.
   */
  public synchronized void apply(Config config) {
    Map<Identity, Target> wanted = new LinkedHashMap<>();
    Map<Identity, Config.ScrapeConfig> jobOf = new HashMap<>();
    for (Config.ScrapeConfig sc : config.scrapeConfigs()) {
      for (Target t : targetsOf(new Config(config.global(), List.of(), List.of(), List.of(sc)))) {
        Identity id = new Identity(t.job(), t.url(), t.labels(), t.interval(), t.timeout(), t.http(), sc.honorLabels(),
            sc.honorTimestamps());
        wanted.putIfAbsent(id, t);
        jobOf.putIfAbsent(id, sc);
      }
    }
    List<Running> kept = new ArrayList<>();
    for (Running r : running) {
      if (wanted.remove(r.id()) != null) {
        kept.add(r);
      } else {
        stop(r);
      }
    }
    running.clear();
    running.addAll(kept);
    wanted.forEach((id, t) -> {
      Config.ScrapeConfig sc = jobOf.get(id);
      ScrapeLoop loop = new ScrapeLoop(t, storage, scraper, clock, sc.honorLabels(), sc.honorTimestamps());
      long interval = t.interval().toMillis();
      long offset = Math.floorMod(t.url().hashCode(), interval);
      long delay = Math.floorMod(offset - clock.millis(), interval);
      ScheduledFuture<?> f = executor.scheduleAtFixedRate(() -> {
        try {
          loop.scrapeOnce();
        } catch (RuntimeException e) {
          log.warn("scrape of {} failed", t.url(), e);
        }
      }, delay, interval, TimeUnit.MILLISECONDS);
      running.add(new Running(id, loop, f));
    });
  }

  private void stop(Running r) {
    r.future().cancel(false);
    try {
      r.loop().stop();
    } catch (RuntimeException e) {
      log.warn("writing stale markers for {} failed", r.loop().target().url(), e);
    }
  }

  private void stopAll() {
    running.forEach(this::stop);
    running.clear();
  }

  public List<Target> activeTargets() {
    List<Target> out = new ArrayList<>();
    for (Running r : running) {
      out.add(r.loop().target());
    }
    return out;
  }

  @Override
  public synchronized void close() {
    stopAll();
    executor.shutdownNow();
  }
}
