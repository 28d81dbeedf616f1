package io.sluice.connect.defaults;

import io.sluice.source.Engine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Sluice's throughput defaults for the bundled connectors, applied when a connector is created or updated without
 * its own value for the key (an explicit value always wins). Measured in {@code bench/}: Debezium's defaults (2,048
 * events a batch, a queue of 8,192, 500 ms poll pauses) leave most of a 2-core machine idle between batches, and the
 * JDBC sink's 500-row batches make one round trip per 500 rows. Bigger is not better past a point: a queue of
 * 65,536 change events outlives young collections, fills the old generation and forces full collections (bench/
 * measured 16,384 / 4,096 at 1.3x the events/s of 65,536 / 16,384).
 *
 * <p>The queue holds two batches, 8,192 change events. With exactly-once sources (Sluice's default) the task stops
 * after each batch to commit its transaction, then Debezium reads the committed offsets back, and Debezium's reader
 * fills the queue meanwhile: a queue of 16,384 stood full, each young collection copied those change events again, and
 * the collector's share per event was the largest part of what transactions cost (issue #41; bench/'s
 * {@code PipelineThroughput} with {@code -Dbench.variant.q16k.source.max.queue.size=16384} measures it again).
 *
 * <p>{@code errors.log.enable} is on because Connect counts {@code total-errors-logged}, which the bundled
 * {@code ConnectHighErrorRate} alert watches, only when errors are logged (record contents stay out of the log unless
 * {@code errors.log.include.messages} is set).
 *
 * <p>A sink also gets a dead letter queue, {@code <connector>.dlq}, with Connect's error context headers and
 * {@code errors.tolerance=all}, unless its config says anything of its own about error tolerance or a dead letter
 * topic: a record its converter cannot read (a schema break, bytes that are not what the converter expects) is then
 * kept and visible to {@code sluice dlq} and the DLQ alerts instead of failing the task. The topic takes the
 * cluster's default replication factor ({@code -1}), as Connect's own internal topics do under Sluice; Connect's
 * default of 3 cannot be met on one broker.
 */
public final class ConnectorDefaults {
  private static final Map<String, String> DEBEZIUM_SOURCE = Map.of(
      "max.batch.size", "4096",
      "max.queue.size", "8192",
      "poll.interval.ms", "50",
      "errors.log.enable", "true");

  /**
   * What a PostgreSQL source carries beside its throughput defaults, so that a row arrives as it left.
   *
   * <p>Each column's source type travels in its schema's parameters ({@code column.propagate.source.type}), from
   * which the JDBC sink makes the column with the source's own type ({@code inet}, {@code jsonb}, {@code varchar(50)},
   * a range, {@code money}) rather than the nearest Connect type ({@code text}, {@code json}).
   *
   * <p>The types whose Debezium representation loses information or is left out of the change event (numeric without
   * a scale, interval, varbit, the geometric types) are carried in PostgreSQL's own text form by Sluice's column
   * converter ({@code io.sluice.source.postgres.PostgresTextConverter}, in the PostgreSQL plugin folder). With
   * Debezium's default {@code time.precision.mode} it also takes {@code date} columns ({@code sluice.dates}), so that
   * a snapshot's {@code infinity} keeps its sign.
   */
  static final Map<String, String> POSTGRES_SOURCE = Map.of(
      "column.propagate.source.type", ".*",
      "converters", "sluice",
      "sluice.type", "io.sluice.source.postgres.PostgresTextConverter",
      "sluice.dates", "epoch.days");

  /** The {@code time.precision.mode}s whose dates are Debezium's day numbers, the schema the converter then gives. */
  private static final java.util.Set<String> EPOCH_DAY_MODES = java.util.Set.of("adaptive",
      "adaptive_time_microseconds");

  /**
   * What a MariaDB or MySQL source carries beside its throughput defaults, so that a row arrives as it left: a
   * {@code bigint unsigned} as a decimal ({@code bigint.unsigned.handling.mode=precise}): Debezium's default
   * ({@code long}) wraps every value above 2^63 - 1 into a negative number (18446744073709551615 arrives as -1). And,
   * as for PostgreSQL, each column's source type in its schema's parameters, from which the JDBC sink makes a MariaDB
   * or MySQL column of the source's own type ({@code tinyint unsigned}, {@code enum(…)}, {@code set(…)},
   * {@code year}, {@code varchar(50)}) rather than the nearest Connect type's. And a binlog connection that the server
   * restarted or ended is opened again within 5 s ({@code connect.keep.alive.interval.ms}): the binlog client
   * reconnects only when its keep-alive thread next looks, and at Debezium's minute the source stood still for up to a
   * minute after each server restart in the exactly-once fault matrix.
   */
  static final Map<String, String> BINLOG_SOURCE = Map.of(
      "bigint.unsigned.handling.mode", "precise",
      "connect.keep.alive.interval.ms", "5000");

  private static final Map<String, String> JDBC_SINK = Map.of(
      "batch.size", "2000",
      "consumer.override.max.poll.records", "2000",
      "errors.log.enable", "true");

  /** Debezium's JDBC sink, and Sluice's, which is Debezium's carrying each snapshot to its end. */
  public static final String SLUICE_JDBC_SINK = "io.sluice.sink.jdbc.SluiceJdbcSinkConnector";
  private static final java.util.Set<String> JDBC_SINK_CLASSES =
      java.util.Set.of("io.debezium.connector.jdbc.JdbcSinkConnector", SLUICE_JDBC_SINK);

  private ConnectorDefaults() {}

  /** The defaults the connector {@code name} with {@code config} does not set itself: what Sluice fills in. */
  public static Map<String, String> missing(String name, Map<String, String> config) {
    Map<String, String> out = new java.util.TreeMap<>();
    forClass(config.get("connector.class")).forEach((k, v) -> {
      if (!config.containsKey(k)) {
        out.put(k, v);
      }
    });
    Engine engine = Engine.ofConnectorClass(config.get("connector.class")).orElse(null);
    if (engine == Engine.POSTGRESQL) {
      postgresSource(config).forEach((k, v) -> {
        if (!config.containsKey(k)) {
          out.put(k, v);
        }
      });
    }
    if (engine == Engine.MARIADB || engine == Engine.MYSQL) {
      BINLOG_SOURCE.forEach((k, v) -> {
        if (!config.containsKey(k)) {
          out.put(k, v);
        }
      });
      if (!config.containsKey("column.propagate.source.type")
          && !config.containsKey("datatype.propagate.source.type")) {
        out.put("column.propagate.source.type", POSTGRES_SOURCE.get("column.propagate.source.type"));
      }
    }
    if (config.get("connector.class") != null && JDBC_SINK_CLASSES.contains(config.get("connector.class"))) {
      sinkDriver(config).forEach((k, v) -> {
        if (!config.containsKey(k)) {
          out.put(k, v);
        }
      });
    }
    if (isSink(config.get("connector.class")) && name != null && !name.isBlank()
        && !config.containsKey("errors.tolerance") && !config.containsKey("errors.deadletterqueue.topic.name")) {
      out.put("errors.tolerance", "all");
      out.put("errors.deadletterqueue.topic.name", name + ".dlq");
      out.put("errors.deadletterqueue.context.headers.enable", "true");
      if (!config.containsKey("errors.deadletterqueue.topic.replication.factor")) {
        out.put("errors.deadletterqueue.topic.replication.factor", "-1");
      }
    }
    return out;
  }

  /**
   * What a JDBC sink's driver is told, beside the reduction buffer.
   *
   * <p>Multi-row writes for a sink whose rows have keys: the driver sends a batch as one statement of many rows
   * (PostgreSQL's {@code reWriteBatchedInserts}, MySQL Connector/J's {@code rewriteBatchedStatements}) instead of one
   * statement per row. An upsert of many rows fails in PostgreSQL when two of them have the same key ("ON CONFLICT DO
   * UPDATE command cannot affect row a second time"), so the sink also keeps only each key's last change of a batch
   * ({@code use.reduction.buffer}; a delete and a later insert of one key still end as the insert). The reduction needs
   * keys from the record, hence only for {@code record_key} and {@code record_value}.
   *
   * <p>For every MySQL or MariaDB sink, {@code nullDatabaseMeansCurrent}: Debezium's sink looks its table up in the
   * driver's metadata without naming a database, and both drivers then search every database of the server. A table
   * of the same name in another database (a second sink's, a copy) is found instead, the sink does not create its
   * own, and every write fails with "Table … doesn't exist" (seen with two sink databases on one MariaDB server).
   *
   * <p>For a PostgreSQL sink, {@code stringtype=unspecified}: the sink sends text values untyped and PostgreSQL reads
   * them as the column's type. Bound as {@code varchar}, a value for a column of a type the sink does not know (an
   * enum, a domain, {@code inet} without the source's type in the schema) is refused ("column … is of type mood but
   * expression is of type character varying") and stops the sink for the whole table.
   *
   * <p>A sink subscribed by {@code topics.regex} looks for new topics every {@link #TOPIC_DISCOVERY_MS} ms.
   *
   * <p>A driver property in the URL wins over the ones given here, and a URL Sluice cannot read (a secret reference)
   * gets only the reduction.
   *
   * <p>Headers as plain strings ({@code header.converter}), unless the sink takes its key from them: the worker's
   * default converter parses every header value to guess its type, and Debezium's sources put three headers on every
   * record that the sink never reads otherwise (measured in {@code bench/}: a third of the worker's conversion time).
   */
  private static Map<String, String> sinkDriver(Map<String, String> config) {
    String keys = config.getOrDefault("primary.key.mode", "none").trim().toLowerCase(java.util.Locale.ROOT);
    boolean keyed = keys.equals("record_key") || keys.equals("record_value");
    Map<String, String> out = new java.util.TreeMap<>();
    if (keyed) {
      out.put("use.reduction.buffer", "true");
    }
    if (!keys.equals("record_header")) {
      out.put("header.converter", "org.apache.kafka.connect.storage.StringConverter");
    }
    if (config.containsKey("topics.regex")) {
      out.put("consumer.override.metadata.max.age.ms", TOPIC_DISCOVERY_MS);
    }
    String url = config.getOrDefault("connection.url", "");
    List<String> driver = new ArrayList<>();
    if (url.startsWith("jdbc:postgresql:")) {
      if (keyed) {
        driver.add("reWriteBatchedInserts=true");
      }
      driver.add("stringtype=unspecified");
    } else if (url.startsWith("jdbc:mysql:") || url.startsWith("jdbc:mariadb:")) {
      if (keyed && url.startsWith("jdbc:mysql:")) {
        driver.add("rewriteBatchedStatements=true");
      }
      driver.add("nullDatabaseMeansCurrent=true");
    }
    if (!driver.isEmpty()) {
      out.put(DRIVER_PROPERTIES, String.join(";", driver));
    }
    return out;
  }

  /**
   * {@link #POSTGRES_SOURCE}, each part where the config says nothing of its own about it: a source that names
   * converters of its own, or propagates source types for some columns only, keeps its choice.
   */
  private static Map<String, String> postgresSource(Map<String, String> config) {
    Map<String, String> out = new java.util.TreeMap<>();
    if (!config.containsKey("column.propagate.source.type") && !config.containsKey("datatype.propagate.source.type")) {
      out.put("column.propagate.source.type", POSTGRES_SOURCE.get("column.propagate.source.type"));
    }
    if (!config.containsKey("converters")) {
      out.put("converters", POSTGRES_SOURCE.get("converters"));
      out.put("sluice.type", POSTGRES_SOURCE.get("sluice.type"));
      if (EPOCH_DAY_MODES.contains(config.getOrDefault("time.precision.mode", "adaptive").toLowerCase(
          java.util.Locale.ROOT))) {
        out.put("sluice.dates", POSTGRES_SOURCE.get("sluice.dates"));
      }
    }
    return out;
  }

  /**
   * How soon a sink subscribed by {@code topics.regex} reads a topic made after it started (a table its source
   * captures for the first time, a sink made before its source): Kafka's consumer looks every 5 minutes.
   */
  static final String TOPIC_DISCOVERY_MS = "5000";

  /**
   * The keys of {@code config} that say "none" by being blank, to be left out of the config Connect stores: a source
   * that writes {@code converters=} wants no converter, Sluice's neither, and Debezium fails on a blank list.
   */
  public static java.util.Set<String> cleared(Map<String, String> config) {
    String value = config.get("converters");
    return value != null && value.isBlank() && isDebeziumSource(config.get("connector.class"))
        ? java.util.Set.of("converters") : java.util.Set.of();
  }

  private static boolean isDebeziumSource(String connectorClass) {
    return connectorClass != null && connectorClass.startsWith("io.debezium.connector.")
        && connectorClass.endsWith("Connector") && !isSink(connectorClass);
  }

  /** Hibernate's Agroal pool, which Debezium's JDBC sink connects through, hands these to the JDBC driver. */
  static final String DRIVER_PROPERTIES = "hibernate.agroal.jdbcProperties";

  /** Sinks by class name: the bundled JDBC sink, and the convention every sink connector we know follows. */
  static boolean isSink(String connectorClass) {
    if (connectorClass == null) {
      return false;
    }
    String simple = connectorClass.substring(connectorClass.lastIndexOf('.') + 1);
    return simple.contains("Sink");
  }

  /** The defaults for a connector class; empty for classes Sluice does not tune. */
  static Map<String, String> forClass(String connectorClass) {
    if (connectorClass == null) {
      return Map.of();
    }
    if (JDBC_SINK_CLASSES.contains(connectorClass)) {
      return JDBC_SINK;
    }
    if (connectorClass.startsWith("io.debezium.connector.") && connectorClass.endsWith("Connector")) {
      return DEBEZIUM_SOURCE;
    }
    return Map.of();
  }
}
