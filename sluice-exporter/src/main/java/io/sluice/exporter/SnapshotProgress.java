package io.sluice.exporter;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * Where a Debezium source's snapshot stands, from its snapshot MBean
 * ({@code debezium.<connector>:type=connector-metrics,context=snapshot,server=<topic.prefix>}): the initial snapshot,
 * a blocking one and an incremental one all report there. {@code rowsScanned} counts per table what has been read so
 * far (an incremental snapshot updates it after each chunk); {@code tables} are every table the task snapshotted or
 * is snapshotting since it started.
 */
record SnapshotProgress(boolean running, boolean paused, boolean completed, boolean aborted, int totalTables,
    int remainingTables, long durationSeconds, Map<String, Long> rowsScanned, Set<String> tables) {
  private static final MBeanServer MBEANS = ManagementFactory.getPlatformMBeanServer();

  /** A snapshot that is running or paused: one whose tables are worth an estimate of their size. */
  boolean inProgress() {
    return running || paused;
  }

  /** The progress of every source of this JVM that has a snapshot MBean, by its {@code server} (topic prefix). */
  static Map<String, SnapshotProgress> read() {
    Map<String, SnapshotProgress> out = new HashMap<>();
    try {
      for (ObjectName n : MBEANS.queryNames(new ObjectName("debezium.*:type=connector-metrics,context=snapshot,*"),
          null)) {
        String server = n.getKeyProperty("server");
        if (server == null || out.containsKey(server)) {
          continue;
        }
        try {
          out.put(server, of(n));
        } catch (JMException | RuntimeException e) {
          // An MBean that went away between the query and the read: its connector is stopping.
        }
      }
    } catch (JMException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  private static SnapshotProgress of(ObjectName n) throws JMException {
    Map<String, Long> rows = new TreeMap<>();
    Object scanned = MBEANS.getAttribute(n, "RowsScanned");
    if (scanned instanceof TabularData table) {
      // An MXBean serves a Map<String, Long> as a table of key/value rows.
      for (Object row : table.values()) {
        CompositeData r = (CompositeData) row;
        if (r.get("value") instanceof Number v) {
          rows.put(String.valueOf(r.get("key")), v.longValue());
        }
      }
    } else if (scanned instanceof Map<?, ?> map) {
      map.forEach((k, v) -> {
        if (v instanceof Number num) {
          rows.put(String.valueOf(k), num.longValue());
        }
      });
    }
    Set<String> tables = new TreeSet<>(rows.keySet());
    if (MBEANS.getAttribute(n, "CapturedTables") instanceof String[] captured) {
      tables.addAll(java.util.List.of(captured));
    }
    return new SnapshotProgress(bool(n, "SnapshotRunning"), bool(n, "SnapshotPaused"), bool(n, "SnapshotCompleted"),
        bool(n, "SnapshotAborted"), number(n, "TotalTableCount").intValue(),
        number(n, "RemainingTableCount").intValue(), number(n, "SnapshotDurationInSeconds").longValue(), rows,
        tables);
  }

  private static boolean bool(ObjectName n, String attribute) throws JMException {
    return Boolean.TRUE.equals(MBEANS.getAttribute(n, attribute));
  }

  private static Number number(ObjectName n, String attribute) throws JMException {
    return MBEANS.getAttribute(n, attribute) instanceof Number v ? v : 0;
  }
}
