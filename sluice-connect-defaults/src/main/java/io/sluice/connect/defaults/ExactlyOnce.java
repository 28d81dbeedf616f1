package io.sluice.connect.defaults;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which sources deliver exactly once, and what Sluice fills in so that they do.
 *
 * <p>A Connect worker with exactly-once source support ({@code exactly.once.source.support=enabled}, Sluice's
 * default) runs every source task with a transactional producer, but only a connector that can resume exactly after
 * its last committed offset delivers each change once; Connect lets a connector declare that it can
 * ({@code SourceConnector.exactlyOnceSupport}). Debezium's PostgreSQL, MySQL, MariaDB and SQL Server connectors do. For
 * these, on a worker with the support enabled, Sluice fills in {@code exactly.once.support=required}: Connect then
 * checks, when the connector is created or its config changed, that both the worker and the connector can, and
 * refuses the config otherwise, instead of running it at least once in silence. Any other source (a third-party
 * plugin) keeps Connect's default, {@code requested}, and Sluice counts it as at least once.
 *
 * <p>Transactions end at each batch a task's {@code poll} returns ({@code transaction.boundary=poll}, Connect's
 * default); {@code transaction.boundary=interval} with {@code transaction.boundary.interval.ms} commits at an interval
 * instead.
 */
public final class ExactlyOnce {
  /** The connector key: {@code requested} (Connect's default) or {@code required}. */
  public static final String SUPPORT = "exactly.once.support";
  /** The connector key: {@code poll} (Connect's default), {@code interval} or {@code connector}. */
  public static final String BOUNDARY = "transaction.boundary";
  public static final String BOUNDARY_INTERVAL = "transaction.boundary.interval.ms";

  /** The bundled sources, each declaring {@code ExactlyOnceSupport.SUPPORTED} to Connect. */
  static final Set<String> SUPPORTED = Set.of(
      "io.debezium.connector.postgresql.PostgresConnector",
      "io.debezium.connector.mysql.MySqlConnector",
      "io.debezium.connector.mariadb.MariaDbConnector",
      "io.debezium.connector.sqlserver.SqlServerConnector");

  /** A connector's delivery guarantee into Kafka, as {@code sluice connectors} and the exporter show it. */
  public enum Guarantee {
    EXACTLY_ONCE("exactly once"),
    AT_LEAST_ONCE("at least once");

    private final String text;

    Guarantee(String text) {
      this.text = text;
    }

    /** {@code exactly once} or {@code at least once}. */
    public String text() {
      return text;
    }
  }

  private ExactlyOnce() {}

  /** True for a source class that declares exactly-once support to Connect. */
  public static boolean supports(String connectorClass) {
    return connectorClass != null && SUPPORTED.contains(connectorClass);
  }

  /**
   * What a worker with exactly-once source support fills into {@code config}: {@code exactly.once.support=required}
   * for a source that supports it and does not say otherwise; nothing for any other.
   */
  public static Map<String, String> missing(Map<String, String> config) {
    if (supports(config.get("connector.class")) && !config.containsKey(SUPPORT)) {
      return Map.of(SUPPORT, "required");
    }
    return Map.of();
  }

  /**
   * The guarantee a connector with {@code config} runs with: exactly once for a source whose config requires it
   * (Connect checked, when the config was written, that the worker and the connector both can), at least once for
   * any other source and for a sink (a sink reads committed records only, but its writes to its own system are retried
   * after a failure: the JDBC sink's upserts make that harmless).
   */
  public static Guarantee guarantee(Map<String, String> config) {
    String support = config.get(SUPPORT);
    if (support != null && support.trim().toLowerCase(Locale.ROOT).equals("required")) {
      return Guarantee.EXACTLY_ONCE;
    }
    return Guarantee.AT_LEAST_ONCE;
  }

  /**
   * Why a connector runs at least once, in a sentence for {@code sluice connectors describe}; null for one that
   * runs exactly once.
   */
  public static String whyAtLeastOnce(String type, Map<String, String> config) {
    if (guarantee(config) == Guarantee.EXACTLY_ONCE) {
      return null;
    }
    if ("sink".equals(type)) {
      return "a sink: it reads committed records only, and writes again what a failure interrupted";
    }
    String cls = config.get("connector.class");
    if (supports(cls)) {
      return "exactly.once.support is not required: the worker does not run exactly-once source support "
          + "(exactly.once.source.support), or the config asks for " + config.getOrDefault(SUPPORT, "requested");
    }
    return (cls == null ? "the connector" : cls.substring(cls.lastIndexOf('.') + 1))
        + " does not declare exactly-once support to Connect";
  }
}
