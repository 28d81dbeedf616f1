package io.sluice.metrics.rules;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.notifier.Notifier;
import io.sluice.metrics.promql.Engine;
import io.sluice.metrics.promql.Value;
import io.sluice.metrics.promql.parser.Parser;
import io.sluice.metrics.storage.Storage;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads rule files and evaluates their groups, each on its own schedule, through the PromQL engine like any other
 * client, writing results to the store and handing due alerts to a sender (the notifier). A reload parses every file
 * first and changes nothing if one is broken; groups that survive a reload keep their alerts' state. Follows
 * Prometheus's {@code rules/manager.go}.
 */
public final class Ruler implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Ruler.class);

  private final Storage storage;
  private final Engine engine;
  private final Clock clock;
  private final long resendDelay;
  private final Consumer<List<Notifier.Alert>> sender;
  private final ScheduledExecutorService executor;
  private final Map<String, Running> running = new LinkedHashMap<>();
  private volatile String externalUrl;
  private volatile Labels externalLabels = Labels.EMPTY;
  /** Only the groups of the first load after a start restore their alerts' {@code for} state. */
  private boolean loadedOnce;

  /** A scheduled group; {@code lock} keeps a reload from copying state in the middle of an evaluation. */
  private static final class Running {
    final Group group;
    final Object lock = new Object();
    volatile ScheduledFuture<?> next;
    volatile boolean stopped;
    boolean restore;

    Running(Group group) {
      this.group = group;
    }
  }

  private Ruler(Builder b) {
    this.storage = b.storage;
    this.engine = b.engine;
    this.clock = b.clock;
    this.resendDelay = b.resendDelay.toMillis();
    this.sender = b.sender;
    this.externalUrl = b.externalUrl;
    this.executor = Executors.newScheduledThreadPool(b.threads, r -> {
      Thread t = new Thread(r, "sluice-metrics-rules");
      t.setDaemon(true);
      return t;
    });
  }

  public static Builder builder() {
    return new Builder();
  }

  public static final class Builder {
    private Storage storage;
    private Engine engine;
    private Clock clock = Clock.systemUTC();
    private Duration resendDelay = Duration.ofMinutes(1);
    private Consumer<List<Notifier.Alert>> sender = alerts -> {};
    private String externalUrl = "http://127.0.0.1:9090";
    private int threads = 2;

    private Builder() {}

    public Builder storage(Storage storage) {
      this.storage = storage;
      return this;
    }

    public Builder engine(Engine engine) {
      this.engine = engine;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** How often a firing alert is sent again ({@code --rules.alert.resend-delay}); 1 minute by default. */
    public Builder resendDelay(Duration d) {
      this.resendDelay = d;
      return this;
    }

    /** Where alerts go, already in the router's shape (the notifier's {@code send}). */
    public Builder sender(Consumer<List<Notifier.Alert>> sender) {
      this.sender = sender;
      return this;
    }

    /** This server's URL as users reach it, for alerts' generator links. */
    public Builder externalUrl(String url) {
      this.externalUrl = url;
      return this;
    }

    public Builder threads(int n) {
      this.threads = n;
      return this;
    }

    public Ruler build() {
      if (storage == null || engine == null) {
        throw new IllegalStateException("storage and engine are required");
      }
      return new Ruler(this);
    }
  }

  /** The files a list of {@code rule_files} patterns names (a glob in the file name part), relative to {@code dir}. */
  public static List<Path> resolve(List<String> patterns, Path dir) {
    List<Path> out = new ArrayList<>();
    for (String p : patterns) {
      Path path = dir == null ? Path.of(p) : dir.resolve(p);
      String name = path.getFileName().toString();
      if (!name.contains("*") && !name.contains("?") && !name.contains("[")) {
        out.add(path);
        continue;
      }
      Path parent = path.getParent() == null ? Path.of(".") : path.getParent();
      if (!Files.isDirectory(parent)) {
        continue;
      }
      List<Path> matched = new ArrayList<>();
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(parent, name)) {
        ds.forEach(matched::add);
      } catch (IOException e) {
        throw new RuleFile.RuleFileException(p, List.of("cannot list: " + e.getMessage()));
      }
      matched.sort(null);
      out.addAll(matched);
    }
    return out;
  }

  /** Parses every file into groups; throws {@link RuleFile.RuleFileException} at the first broken file. */
  public static List<Group> loadGroups(List<Path> files, Duration defaultInterval) {
    List<Group> groups = new ArrayList<>();
    for (Path f : files) {
      RuleFile rf = RuleFile.load(f);
      for (RuleFile.GroupSpec g : rf.groups()) {
        groups.add(Group.of(g, f.toString(), defaultInterval.toMillis()));
      }
    }
    return groups;
  }

  /** The engine as rules use it: vectors as they are, a scalar as one sample without labels. */
  public static Rule.QueryFunction queryFunction(Engine engine, Storage storage) {
    return (expr, ts) -> {
      Value v = engine.instantQuery(storage, expr, ts);
      if (v instanceof Value.Vector vec) {
        return vec.samples();
      }
      if (v instanceof Value.Scalar s) {
        return List.of(new Value.Sample(Labels.EMPTY, ts, s.v()));
      }
      throw new RuleEvaluationException("rule result is not a vector or scalar");
    };
  }

  /** Templates' {@code query}: samples as {@code {Labels, Value}}. */
  public static Rule.TemplateQuery templateQuery(Engine engine, Storage storage) {
    Rule.QueryFunction q = queryFunction(engine, storage);
    return (expr, ts) -> {
      List<Map<String, Object>> out = new ArrayList<>();
      for (Value.Sample s : q.query(Parser.parse(expr), ts)) {
        out.add(Map.of("Labels", s.labels().toMap(), "Value", s.v()));
      }
      return out;
    };
  }

  /**
   * Replaces the running groups with those of {@code files}. Everything is parsed first: on any error nothing changes
   * and the exception says why.
   */
  public synchronized void apply(List<Path> files, Duration defaultInterval, Labels externalLabels) {
    List<Group> fresh = loadGroups(files, defaultInterval);
    this.externalLabels = externalLabels;
    Map<String, Running> old = new LinkedHashMap<>(running);
    running.clear();
    for (Group g : fresh) {
      Running prev = old.remove(g.key());
      if (prev != null) {
        stop(prev);
        synchronized (prev.lock) {
          g.copyStateFrom(prev.group);
        }
      }
      Running r = new Running(g);
      if (!loadedOnce) {
        r.restore = true;
        g.awaitRestore();
      }
      running.put(g.key(), r);
      schedule(r);
    }
    loadedOnce = true;
    long now = clock.millis();
    for (Running gone : old.values()) {
      stop(gone);
      synchronized (gone.lock) {
        gone.group.markStale(now, storage);
      }
    }
    log.info("rules: {} groups from {} files", fresh.size(), files.size());
  }

  private static void stop(Running r) {
    r.stopped = true;
    ScheduledFuture<?> f = r.next;
    if (f != null) {
      f.cancel(false);
    }
  }

  private void schedule(Running r) {
    if (r.stopped) {
      return;
    }
    long now = clock.millis();
    long last = r.group.lastEvaluation();
    long slot = r.group.evalTimestamp(now);
    // The first evaluation waits for the group's next slot; a late one skips the slots it missed.
    long next = last == 0 ? slot + r.group.intervalMillis() : Math.max(last + r.group.intervalMillis(), slot);
    long at = next;
    r.next = executor.schedule(() -> runOnce(r, at), Math.max(0, at - now), TimeUnit.MILLISECONDS);
  }

  private void runOnce(Running r, long ts) {
    synchronized (r.lock) {
      if (r.stopped) {
        return;
      }
      try {
        evalGroup(r.group, ts);
        if (r.restore) {
          // Prometheus's defaults: an outage tolerance of 1h and a grace period of 10m.
          r.restore = false;
          r.group.restoreForState(ts, storage, 3_600_000L, 600_000L);
        }
      } catch (RuntimeException e) {
        log.warn("rule group {} failed", r.group.name(), e);
      }
    }
    schedule(r);
  }

  /** One evaluation of a group at {@code ts}, as the schedule runs it (the benchmark calls it directly). */
  public void evalGroup(Group g, long ts) {
    String url = externalUrl;
    Rule.RuleContext ctx = new Rule.RuleContext(externalLabels, url, g.limit(), templateQuery(engine, storage));
    g.eval(ts, storage, queryFunction(engine, storage), ctx, resendDelay, (expr, alerts) -> sender.accept(
        toNotifier(alerts, url + "/graph?g0.expr=" + URLEncoder.encode(expr, StandardCharsets.UTF_8)
            + "&g0.tab=1")));
  }

  /** Prometheus's {@code SendAlerts}: startsAt is when it fired; endsAt when it resolved, else its validity. */
  static List<Notifier.Alert> toNotifier(List<Alert> alerts, String generatorUrl) {
    List<Notifier.Alert> out = new ArrayList<>(alerts.size());
    for (Alert a : alerts) {
      long ends = a.isResolved() ? a.resolvedAt() : a.validUntil();
      out.add(new Notifier.Alert(a.labels(), a.annotations(),
          a.firedAt() == Alert.UNSET ? null : Instant.ofEpochMilli(a.firedAt()),
          Instant.ofEpochMilli(ends), generatorUrl));
    }
    return out;
  }

  public void externalUrl(String url) {
    this.externalUrl = url;
  }

  /** The loaded groups in file and file order. */
  public synchronized List<Group> groups() {
    List<Group> out = new ArrayList<>();
    for (Running r : running.values()) {
      out.add(r.group);
    }
    return out;
  }

  /** Pending and firing alerts of every alerting rule. */
  public List<Alert> alerts() {
    List<Alert> out = new ArrayList<>();
    for (Group g : groups()) {
      for (Rule r : g.rules()) {
        if (r instanceof AlertingRule a) {
          out.addAll(a.activeAlerts());
        }
      }
    }
    return out;
  }

  @Override
  public synchronized void close() {
    for (Running r : running.values()) {
      stop(r);
    }
    executor.shutdownNow();
  }
}
