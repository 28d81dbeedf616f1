package io.sluice.exporter;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Collects the data points of one scrape by metric family, then turns them into the client's snapshots. */
final class Families {
  private record Family(boolean counter, String help, List<Object> points) {}

  private final Map<String, Family> families = new LinkedHashMap<>();

  /** A counter sample; {@code name} without {@code _total} (the writer adds it). */
  void counter(String name, String help, double value, String... labels) {
    family(name, true, help).points().add(CounterDataPointSnapshot.builder().value(value).labels(Labels.of(labels))
        .build());
  }

  void gauge(String name, String help, double value, String... labels) {
    family(name, false, help).points().add(GaugeDataPointSnapshot.builder().value(value).labels(Labels.of(labels))
        .build());
  }

  /** A slow value and its {@code <name>_timestamp_seconds} companion with the same labels. */
  void timedGauge(String name, String help, double value, double readAt, String... labels) {
    gauge(name, help, value, labels);
    gauge(name + "_timestamp_seconds", "Unix time at which " + name + " was last read.", readAt, labels);
  }

  /** Declares a family so that it is listed (with HELP and TYPE) even while it has no series yet. */
  void declare(String name, boolean counter, String help) {
    family(name, counter, help);
  }

  private Family family(String name, boolean counter, String help) {
    return families.computeIfAbsent(name, n -> new Family(counter, help, new ArrayList<>()));
  }

  List<MetricSnapshot> snapshots() {
    List<MetricSnapshot> out = new ArrayList<>(families.size());
    families.forEach((name, f) -> {
      if (f.counter()) {
        CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(f.help());
        f.points().forEach(p -> b.dataPoint((CounterDataPointSnapshot) p));
        out.add(b.build());
      } else {
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(f.help());
        f.points().forEach(p -> b.dataPoint((GaugeDataPointSnapshot) p));
        out.add(b.build());
      }
    });
    return out;
  }
}
