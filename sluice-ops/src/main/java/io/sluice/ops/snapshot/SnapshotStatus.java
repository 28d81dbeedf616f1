package io.sluice.ops.snapshot;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Where a source's snapshot stands, from what was last asked of it (its signal topic) and from what its snapshot
 * metrics last said (the exporter's {@code svc_debezium_snapshot_*} series, as the metrics server scraped them).
 *
 * @param state {@code requested} (sent, not yet seen at work), {@code running}, {@code paused}, {@code completed},
 *     {@code stopped} (stopped or aborted), {@code idle} (nothing asked, nothing running) or {@code unknown} (no
 *     metrics for the source: not scraped yet, or its task is not running)
 * @param percent of the estimated rows of the tables asked for, read so far; empty without estimates
 */
public record SnapshotStatus(String connector, String state, Optional<Requested> requested, List<Table> tables,
    Optional<Double> percent, int tablesTotal, int tablesRemaining, long durationSeconds, Optional<Instant> seenAt) {

  /** The last snapshot asked for: its request, its signal id, and when. */
  public record Requested(SnapshotRequest request, String id, Instant at) {}

  /** One table: rows read so far, the database's estimate of its rows (if known), and the share read. */
  public record Table(String table, long rows, Optional<Long> estimate, Optional<Double> percent) {}

  /** What the metrics said of one source, at one scrape. */
  public record Metrics(boolean running, boolean paused, boolean completed, boolean aborted, int tablesTotal,
      int tablesRemaining, long durationSeconds, Map<String, Long> rowsScanned, Map<String, Long> estimates,
      Instant scrapedAt) {}

  /**
   * A signal is read by the source at its poll interval ({@code signal.poll.interval.ms}, 5 s by Debezium's default),
   * and its metrics reach the metrics server at the next scrape after that: until then, a snapshot asked for is shown
   * as requested, not as the state the metrics still show from before it.
   */
  static final Duration SIGNAL_GRACE = Duration.ofSeconds(10);

  public static SnapshotStatus of(String connector, Optional<Requested> requested, Optional<Metrics> metrics) {
    if (metrics.isEmpty()) {
      return new SnapshotStatus(connector, requested.isPresent() ? "requested" : "unknown", requested,
          requested.map(r -> tablesOf(r, Map.of(), Map.of(), false)).orElse(List.of()), Optional.empty(), 0, 0, 0,
          Optional.empty());
    }
    Metrics m = metrics.get();
    boolean stale = requested.isPresent() && m.scrapedAt().isBefore(requested.get().at().plus(SIGNAL_GRACE));
    String state = m.running() ? "running" : m.paused() ? "paused" : stale ? "requested"
        : m.completed() ? (requested.isPresent() ? "completed" : "idle") : m.aborted() ? "stopped" : "idle";
    boolean done = state.equals("completed");
    List<Table> tables = requested.map(r -> tablesOf(r, m.rowsScanned(), m.estimates(), done))
        .orElseGet(() -> tablesOf(null, m.rowsScanned(), m.estimates(), done));
    if (state.equals("requested")) {
      tables = tables.stream().map(t -> new Table(t.table(), 0, t.estimate(), t.estimate().map(e -> 0.0))).toList();
    }
    long rows = 0;
    long estimated = 0;
    for (Table t : tables) {
      if (t.estimate().isPresent()) {
        rows += Math.min(t.rows(), t.estimate().get());
        estimated += t.estimate().get();
      }
    }
    Optional<Double> percent = done ? Optional.of(100.0)
        : estimated > 0 ? Optional.of(Math.min(100.0, rows * 100.0 / estimated)) : Optional.empty();
    return new SnapshotStatus(connector, state, requested, tables, percent, m.tablesTotal(), m.tablesRemaining(),
        m.durationSeconds(), Optional.of(m.scrapedAt()));
  }

  /**
   * The tables asked for (Debezium reads each name as a regular expression) as the metrics name them; a table not in
   * the metrics yet is shown with no rows read. Without a request, every table the metrics know.
   */
  private static List<Table> tablesOf(Requested r, Map<String, Long> rows, Map<String, Long> estimates,
      boolean done) {
    TreeSet<String> known = new TreeSet<>(rows.keySet());
    known.addAll(estimates.keySet());
    List<String> names = new ArrayList<>();
    if (r == null) {
      names.addAll(known);
    } else {
      for (String asked : r.request().tables()) {
        List<String> matched = known.stream().filter(k -> matches(asked, k)).toList();
        if (matched.isEmpty()) {
          names.add(asked);
        } else {
          matched.stream().filter(k -> !names.contains(k)).forEach(names::add);
        }
      }
    }
    List<Table> out = new ArrayList<>();
    for (String name : names) {
      long read = rows.getOrDefault(name, 0L);
      Optional<Long> estimate = Optional.ofNullable(estimates.get(name));
      Optional<Double> percent = done ? Optional.of(100.0)
          : estimate.map(e -> e == 0 ? 100.0 : Math.min(100.0, read * 100.0 / e));
      out.add(new Table(name, read, estimate, percent));
    }
    return out;
  }

  private static boolean matches(String asked, String table) {
    if (asked.equals(table) || table.endsWith("." + asked)) {
      return true;
    }
    try {
      return Pattern.compile(asked).matcher(table).matches();
    } catch (PatternSyntaxException e) {
      return false;
    }
  }

  /** The last {@code execute-snapshot} among the signals, oldest first. */
  public static Optional<Requested> lastRequested(List<AdHocSnapshot.Signal> signals) {
    for (int i = signals.size() - 1; i >= 0; i--) {
      AdHocSnapshot.Signal s = signals.get(i);
      Optional<SnapshotRequest> r = Signals.request(s.value());
      if (r.isPresent()) {
        return Optional.of(new Requested(r.get(), s.value().path("id").asText(), s.at()));
      }
    }
    return Optional.empty();
  }
}
