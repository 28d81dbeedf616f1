package io.sluice.connect.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.kafka.testing.SharedKafka;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One source database and one sink database with an {@code orders} table, and the connector configs that join them:
 * PostgreSQL → Debezium → Kafka topic → JDBC sink (upsert) → PostgreSQL.
 */
public final class Pipeline {
  private static final ObjectMapper JSON = new ObjectMapper();
  public static final String CDC_USER = "cdc_user";
  public static final String CDC_PASSWORD = "Sup3r-s3cret-pw";

  public final String name;
  public final String sourceDb;
  public final String sinkDb;
  public final String topicPrefix;

  public Pipeline(String name) {
    this.name = name.replace('-', '_');
    this.sourceDb = this.name + "_src";
    this.sinkDb = this.name + "_sink";
    this.topicPrefix = this.name;
    SharedPostgres.createDatabase(sourceDb);
    SharedPostgres.createDatabase(sinkDb);
    execute(sourceDb, "CREATE TABLE public.orders (id int PRIMARY KEY, item text NOT NULL, qty int NOT NULL)");
    ensureCdcUser();
  }

  /** The role every test pipeline connects as (a superuser with replication), made once per server. */
  public static synchronized void ensureCdcUser() {
    try (Connection c = SharedPostgres.connect("postgres"); Statement s = c.createStatement()) {
      ResultSet rs = s.executeQuery("SELECT 1 FROM pg_roles WHERE rolname = '" + CDC_USER + "'");
      if (!rs.next()) {
        s.execute("CREATE ROLE " + CDC_USER + " WITH LOGIN SUPERUSER REPLICATION PASSWORD '" + CDC_PASSWORD + "'");
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  public String topic() {
    return topicPrefix + ".public.orders";
  }

  /** Exactly the keys the system description lists for a relational source, plus any extras given. */
  public Map<String, String> sourceConfig(String slot, Map<String, String> extra) {
    Map<String, String> c = PostgresSource.of(sourceDb, topicPrefix, slot).tables("public.orders").config();
    c.put("heartbeat.interval.ms", "1000");
    c.putAll(extra);
    return c;
  }

  public Map<String, String> sinkConfig() {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector");
    c.put("connection.url", SharedPostgres.jdbcUrl(sinkDb));
    c.put("connection.username", CDC_USER);
    c.put("connection.password", CDC_PASSWORD);
    c.put("insert.mode", "upsert");
    c.put("delete.enabled", "true");
    c.put("primary.key.mode", "record_key");
    c.put("schema.evolution", "basic");
    c.put("topics", topic());
    c.put("collection.name.format", "orders");
    c.put("tasks.max", "1");
    return c;
  }

  public void execute(String db, String sql) {
    SharedPostgres.execute(db, sql);
  }

  public void insert(int fromId, int toId) {
    execute(sourceDb, "INSERT INTO public.orders SELECT g, 'item-' || g, g FROM generate_series(" + fromId + ", "
        + toId + ") g");
  }

  /** id → "item:qty" of every row of a database's orders table; empty when the table does not exist yet. */
  public Map<Integer, String> rows(String db) {
    try (Connection c = SharedPostgres.connect(db)) {
      return rows(c);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** As {@link #rows(Connection)}, through a JDBC URL that carries its own credentials (a sink in MariaDB, say). */
  public static Map<Integer, String> rowsAt(String jdbcUrl) {
    try (Connection c = java.sql.DriverManager.getConnection(jdbcUrl)) {
      return rows(c);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** As {@link #rows(String)}, from an orders table in any database (a sink in MariaDB, say). */
  public static Map<Integer, String> rows(Connection c) throws SQLException {
    Map<Integer, String> out = new TreeMap<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, item, qty FROM orders")) {
      while (rs.next()) {
        out.put(rs.getInt(1), rs.getString(2) + ":" + rs.getInt(3));
      }
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState()) || "42S02".equals(e.getSQLState())) {
        return out; // PostgreSQL's and MariaDB's "no such table"
      }
      throw e;
    }
    return out;
  }

  /**
   * Waits until the sink's rows equal the source's, for as long as the sink keeps moving toward them (a sink catching
   * up after a restart on a busy machine is late, not wrong): fails once it has not changed for a minute, or after
   * five minutes in all, saying which rows are missing, extra or different and whether the sink was still moving (its
   * row count over the last seconds), so that a late sink and a lost row read differently.
   *
   * @throws SinkMismatch when it did not come to equal the source in time
   */
  public Map<Integer, String> awaitSinkMatchesSource() {
    Map<Integer, String> expected = rows(sourceDb);
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    long stillSince = System.nanoTime();
    Map<Integer, String> last = rows(sinkDb);
    // (time, sink rows) of the last TREND: the count rising is a sink still catching up.
    ArrayDeque<long[]> counts = new ArrayDeque<>();
    counts.add(new long[] {System.nanoTime(), last.size()});
    while (!expected.equals(last)) {
      long now = System.nanoTime();
      if (now - stillSince > Duration.ofSeconds(60).toNanos() || now > deadline) {
        boolean moving = now - stillSince < Duration.ofSeconds(60).toNanos();
        long[] first = counts.peekFirst();
        String trend = String.format("%,d → %,d rows over the last %d s, its last change %.1f s ago", first[1],
            last.size(), Duration.ofNanos(now - first[0]).toSeconds(), (now - stillSince) / 1e9);
        SinkDifference difference = SinkDifference.of(expected, last);
        throw new SinkMismatch("sink not equal to source (" + expected.size() + " rows) " + (moving
            ? "after 5 minutes, the sink still moving (" + trend + ")"
            : "and the sink unchanged for 60 s (" + trend + ")") + ": " + difference, difference, moving);
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
      Map<Integer, String> seen = rows(sinkDb);
      if (!seen.equals(last)) {
        stillSince = System.nanoTime();
      }
      last = seen;
      counts.add(new long[] {System.nanoTime(), last.size()});
      while (System.nanoTime() - counts.peekFirst()[0] > TREND.toNanos()) {
        counts.removeFirst();
      }
    }
    return last;
  }

  /** How far back a failed {@link #awaitSinkMatchesSource} looks at the sink's row count. */
  private static final Duration TREND = Duration.ofSeconds(10);

  /** The change events ({@code payload} of each JSON record) in the topic from {@code fromOffset} to its end. */
  public List<JsonNode> events(long fromOffset) {
    return events(fromOffset, SharedKafka.bootstrapServers());
  }

  /** As {@link #events(long)}, on another cluster than the shared one. */
  public List<JsonNode> events(long fromOffset, String bootstrapServers) {
    return payloads(bootstrapServers, topic(), fromOffset);
  }

  /**
   * The change events ({@code payload} of each JSON record) in partition 0 of any topic from {@code fromOffset} to
   * its end; what was read so far when the topic does not exist yet.
   */
  public static List<JsonNode> payloads(String bootstrapServers, String topic, long fromOffset) {
    List<JsonNode> out = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
        "bootstrap.servers", bootstrapServers, "enable.auto.commit", "false"),
        new StringDeserializer(), new StringDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seek(tp, fromOffset);
      long end = consumer.endOffsets(List.of(tp)).getOrDefault(tp, 0L);
      while (consumer.position(tp) < end) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
          if (r.value() != null) {
            out.add(JSON.readTree(r.value()).path("payload"));
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      return out;
    }
    return out;
  }

  public long endOffset() {
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
        "bootstrap.servers", SharedKafka.bootstrapServers()), new StringDeserializer(), new StringDeserializer())) {
      TopicPartition tp = new TopicPartition(topic(), 0);
      return consumer.endOffsets(List.of(tp)).get(tp);
    }
  }

  public static long count(List<JsonNode> events, String op) {
    return events.stream().filter(e -> op.equals(e.path("op").asText())).count();
  }
}
