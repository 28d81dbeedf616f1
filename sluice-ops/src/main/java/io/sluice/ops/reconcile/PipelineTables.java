package io.sluice.ops.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.source.Engine;
import io.sluice.source.SourceConnection;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The table pairs a pipeline copies, and how to reach both databases, read from its connectors' configs: the
 * Debezium source's {@code database.hostname}/{@code port}/{@code dbname}/{@code user}/{@code password}, the JDBC
 * sink's {@code connection.url}/{@code username}/{@code password}, and for each topic the sink reads that carries the
 * source's {@code topic.prefix}, the source table it comes from and the sink table the sink names after it (Debezium's
 * JDBC sink: {@code collection.name.format}, default {@code ${topic}}, dots then replaced by underscores). So an
 * operator reconciles a pipeline by its name, as {@code sluice reconcile --source … --sink … --table …} would with
 * the same values spelled out.
 */
public final class PipelineTables {
  private PipelineTables() {}

  /** How a setting that may be a secret reference ({@code ${sluice:…}}) becomes its value; {@code what} names it. */
  @FunctionalInterface
  public interface Secrets {
    String resolve(String value, String what);
  }

  /** One database as the reconciler opens it; {@code tls} are driver properties (a source's TLS settings). */
  public record Database(String jdbcUrl, String user, String password, Map<String, String> tls) {
    public Database {
      tls = tls == null ? Map.of() : Map.copyOf(tls);
    }

    public Database(String jdbcUrl, String user, String password) {
      this(jdbcUrl, user, password, Map.of());
    }

    Properties properties() {
      return io.sluice.source.SourceConnection.driverProperties(user, password, tls);
    }

    /** Without the password. */
    @Override
    public String toString() {
      return jdbcUrl + " as " + user;
    }
  }

  /** The engines reconcile has a {@link Dialect} for. */
  private static final Set<Engine> COMPARED = EnumSet.of(Engine.POSTGRESQL, Engine.MYSQL, Engine.MARIADB);

  /** A source table and the sink table it is copied to, through {@code topic}. */
  public record Pair(String topic, String sourceTable, String sinkTable, Database source, Database sink) {
    /** The reconciler of this pair, as {@code sluice reconcile} builds it for a {@code --table}. */
    public Reconciler.Builder reconciler() {
      return Reconciler.builder().source(source.jdbcUrl(), source.properties())
          .sink(sink.jdbcUrl(), sink.properties()).table(sourceTable, sinkTable);
    }
  }

  /**
   * The pairs of one source and one of its sinks.
   *
   * @param sinkTopics the topics the sink reads: its {@code topics}, or for a {@code topics.regex} sink the topics
   *     Connect saw it use
   * @throws IllegalArgumentException when a config lacks what a connection needs, or the source's engine is not one
   *     reconcile compares
   */
  public static List<Pair> of(Map<String, String> source, Map<String, String> sink, List<String> sinkTopics,
      Secrets secrets) {
    Database from = sourceDatabase(source, secrets);
    Database to = sinkDatabase(sink, secrets);
    String prefix = text(source, "topic.prefix", text(source, "database.server.name", null));
    if (prefix == null) {
      throw new IllegalArgumentException("the source has no topic.prefix: cannot tell which topics are its tables");
    }
    String format = text(sink, "collection.name.format", text(sink, "table.name.format", "${topic}"));
    Set<String> topics = new LinkedHashSet<>(sinkTopics);
    List<Pair> out = new ArrayList<>();
    for (String topic : topics) {
      if (!topic.startsWith(prefix + ".")) {
        continue;
      }
      String table = topic.substring(prefix.length() + 1);
      if (table.isEmpty() || table.chars().filter(c -> c == '.').count() > 1) {
        continue; // not <schema-or-db>.<table>: a heartbeat, a transaction or a routed topic
      }
      out.add(new Pair(topic, table, sinkTable(format, topic, table), from, to));
    }
    return out;
  }

  /** No connector of the pipeline's name on Connect. */
  public static final class UnknownPipeline extends IllegalArgumentException {
    UnknownPipeline(String message) {
      super(message);
    }
  }

  /**
   * The table pairs of a pipeline as Connect holds it: its source is the connector of its name; its sinks those
   * reading topics under the source's {@code topic.prefix}, or naming it in {@code sluice.pipeline} (the rule the
   * metrics' {@code pipeline} label follows). One listing of Connect answers for every connector; a
   * {@code topics.regex} sink is asked which topics it used.
   *
   * @throws UnknownPipeline when Connect has no connector of that name
   * @throws IllegalArgumentException when it is not a source, has no sink, or a config lacks what a connection needs
   */
  public static List<Pair> ofPipeline(ConnectRestClient connect, String pipeline, Secrets secrets) {
    JsonNode all = connect.connectorsExpanded();
    JsonNode source = all.path(pipeline).path("info");
    if (source.isMissingNode()) {
      throw new UnknownPipeline("no connector " + pipeline + " on Kafka Connect at " + connect.baseUrl());
    }
    if (!"source".equals(source.path("type").asText())) {
      throw new IllegalArgumentException(pipeline + " is a " + source.path("type").asText()
          + " connector; a pipeline is named after its source");
    }
    Map<String, String> sourceConfig = config(source);
    String prefix = sourceConfig.getOrDefault("topic.prefix", "");
    List<Pair> out = new ArrayList<>();
    int sinks = 0;
    for (Iterator<Map.Entry<String, JsonNode>> it = all.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode info = e.getValue().path("info");
      if (!"sink".equals(info.path("type").asText())) {
        continue;
      }
      Map<String, String> sinkConfig = config(info);
      List<String> topics = new ArrayList<>();
      for (String t : sinkConfig.getOrDefault("topics", "").split(",")) {
        if (!t.isBlank()) {
          topics.add(t.trim());
        }
      }
      if (topics.isEmpty() && sinkConfig.containsKey("topics.regex")) {
        topics.addAll(connect.topics(e.getKey()));
      }
      boolean ours = pipeline.equals(sinkConfig.get("sluice.pipeline"))
          || !prefix.isEmpty() && topics.stream().anyMatch(t -> t.startsWith(prefix + "."));
      if (ours) {
        sinks++;
        out.addAll(of(sourceConfig, sinkConfig, topics, secrets));
      }
    }
    if (sinks == 0) {
      throw new IllegalArgumentException("pipeline " + pipeline + " has no sink: no sink connector reads its topics ("
          + prefix + ".*)");
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("pipeline " + pipeline + " has no table a sink writes from its source's "
          + "topics");
    }
    return out;
  }

  private static Map<String, String> config(JsonNode info) {
    Map<String, String> out = new HashMap<>();
    info.path("config").fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }

  /** The sink table of a topic, as Debezium's JDBC sink's default naming strategy resolves it. */
  static String sinkTable(String format, String topic, String sourceTable) {
    int dot = sourceTable.indexOf('.');
    String schema = dot < 0 ? "" : sourceTable.substring(0, dot);
    String table = dot < 0 ? sourceTable : sourceTable.substring(dot + 1);
    return format.replace("${topic}", topic).replace("${source.table}", table).replace("${source.schema}", schema)
        .replace("${source.db}", schema).replace('.', '_');
  }

  static Database sourceDatabase(Map<String, String> c, Secrets secrets) {
    String type = text(c, "connector.class", "");
    Engine engine = Engine.ofConnectorClass(type).filter(COMPARED::contains).orElseThrow(() ->
        new IllegalArgumentException("reconcile compares PostgreSQL, MySQL and MariaDB sources, not " + type));
    SourceConnection source = SourceConnection.of(engine, c, (key, value) -> secrets.resolve(value,
        "the source's " + key));
    return new Database(source.jdbcUrl(), source.user(), source.password(), source.tls());
  }

  static Database sinkDatabase(Map<String, String> c, Secrets secrets) {
    String url = text(c, "connection.url", null);
    if (url == null) {
      throw new IllegalArgumentException("the sink has no connection.url (reconcile compares JDBC sinks)");
    }
    return new Database(url, text(c, "connection.username", null),
        secrets.resolve(text(c, "connection.password", null), "the sink's connection.password"));
  }

  private static String text(Map<String, String> c, String key, String fallback) {
    String v = c.get(key);
    return v == null || v.isBlank() ? fallback : v.trim();
  }
}
