package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.PackagedSluice.Run;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.serde.SerdeConfig;
import io.sluice.serde.avro.AvroSerializer;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.serde.connect.AvroConverter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Change events as Avro through the packaged {@code ./sluice up}: PostgreSQL → Debezium with Sluice's Avro converter →
 * topic (schemas in Sluice's registry) → the JDBC sink with the same converter → PostgreSQL; a column added at the
 * source becomes a new schema version and a new sink column, microseconds intact; and a sink pinned to a reader
 * schema meeting a writer it cannot read sends that record to the dead letter queue Sluice gave it, and goes on; and
 * the same pipeline with the Protobuf and the JSON Schema converters.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SerdePipelineIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String CONVERTER = AvroConverter.class.getName();

  @TempDir static Path dir;
  private static PackagedSluice.Up up;
  private static String kafka;
  private static String registryUrl;
  private static ConnectRestClient connect;
  private static SchemaRegistryClient registry;
  private static Pipeline pipeline;
  private static String[] cluster;

  @BeforeAll
  static void up() throws Exception {
    int kafkaPort = freePort();
    int connectPort = freePort();
    int registryPort = freePort();
    kafka = "127.0.0.1:" + kafkaPort;
    registryUrl = "http://127.0.0.1:" + registryPort;
    up = PackagedSluice.up(dir, List.of("--data-dir", dir.resolve("data").toString(), "--kafka-port", "" + kafkaPort,
        "--connect-port", "" + connectPort, "--registry-port", "" + registryPort, "--metrics-port", "" + freePort(),
        "--alerts-port", "" + freePort(), "--exporter-port", "" + freePort()));
    connect = new ConnectRestClient("http://127.0.0.1:" + connectPort);
    registry = new SchemaRegistryClient(registryUrl);
    pipeline = new Pipeline("avro_" + ProcessHandle.current().pid());
    cluster = new String[] {"--connect-url", connect.baseUrl(), "--bootstrap", kafka, "--registry", registryUrl};
  }

  @AfterAll
  static void down() throws Exception {
    if (up != null) {
      assertEquals(0, PackagedSluice.down(up), () -> "./sluice up exit on SIGTERM; stderr " + read(up.stderr()));
    }
  }

  private static String[] with(String... args) {
    return Stream.concat(Stream.of(args), Stream.of(cluster)).toArray(String[]::new);
  }

  private static Map<String, String> avro(Map<String, String> config) {
    return converted(config, CONVERTER);
  }

  private static Map<String, String> converted(Map<String, String> config, String converter) {
    Map<String, String> c = new LinkedHashMap<>(config);
    for (String side : List.of("key", "value")) {
      c.put(side + ".converter", converter);
      c.put(side + ".converter.schema.registry.url", registryUrl);
    }
    return c;
  }

  private static void apply(String name, Map<String, String> config) throws Exception {
    Path file = Files.writeString(dir.resolve(name + ".json"),
        JSON.writeValueAsString(Map.of("name", name, "config", config)));
    Run apply = PackagedSluice.run(dir, with("connectors", "apply", "-f", file.toString()));
    assertEquals(0, apply.exit(), apply::toString);
  }

  private static List<String> sinkRows(String sql) throws Exception {
    return rows(pipeline.sinkDb, sql);
  }

  private static List<String> rows(String db, String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = SharedPostgres.connect(db); Statement s = c.createStatement()) {
      ResultSet rs = s.executeQuery(sql);
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    } catch (java.sql.SQLException e) {
      if (!"42P01".equals(e.getSQLState()) && !"42703".equals(e.getSQLState())) {
        throw e;
      }
    }
    return out;
  }

  @Test
  @Order(1)
  void avroChangeEventsReachTheSinkAndAnAddedColumnIsANewVersion() throws Exception {
    pipeline.insert(1, 20);
    apply(pipeline.name + "-source", avro(pipeline.sourceConfig(pipeline.name + "_slot", Map.of())));
    apply(pipeline.name + "-sink", avro(pipeline.sinkConfig()));
    pipeline.awaitSinkMatchesSource();

    String subject = pipeline.topic() + "-value";
    assertTrue(registry.subjects().containsAll(List.of(subject, pipeline.topic() + "-key")), registry.subjects()
        .toString());
    assertEquals(List.of(1), registry.versions(subject));
    // The sink got Sluice's dead letter queue without asking for one.
    ObjectNode sinkConfig = connect.config(pipeline.name + "-sink").orElseThrow();
    assertEquals(pipeline.name + "-sink.dlq", sinkConfig.path("errors.deadletterqueue.topic.name").asText(),
        sinkConfig.toString());
    assertEquals("all", sinkConfig.path("errors.tolerance").asText());

    pipeline.execute(pipeline.sourceDb, "ALTER TABLE public.orders ADD COLUMN placed_at timestamp(6)");
    pipeline.execute(pipeline.sourceDb, "INSERT INTO public.orders VALUES (21, 'item-21', 21, "
        + "'2026-11-25 07:00:00.123456')");
    pipeline.execute(pipeline.sourceDb, "UPDATE public.orders SET qty = 99 WHERE id = 3");
    pipeline.awaitSinkMatchesSource();
    assertEquals(List.of("2026-11-25 07:00:00.123456"),
        Eventually.await("the new column at the sink", WAIT,
            () -> {
              try {
                return sinkRows("SELECT placed_at::text FROM orders WHERE id = 21");
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            }, rows -> !rows.isEmpty()), "microseconds kept end to end");
    assertEquals(java.util.Arrays.asList((String) null), sinkRows("SELECT placed_at::text FROM orders WHERE id = 1"),
        "an old row reads the new column as null");
    assertEquals(List.of(1, 2), registry.versions(subject), "the added column is a second, compatible version");
    assertTrue(registry.version(subject, "2").orElseThrow().schema().schema().contains("io.debezium.time.MicroTimestamp"));
    assertEquals("RUNNING", connect.status(pipeline.name + "-sink").path("tasks").path(0).path("state").asText());
  }

  private static final String FLAT = "{\"type\":\"record\",\"name\":\"Item\",\"namespace\":\"shop\",\"fields\":["
      + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"item\",\"type\":\"string\"},{\"name\":\"qty\",\"type\":\"int\"}]}";

  private static void produce(String topic, String schema, Object... fields) throws Exception {
    Schema s = new Schema.Parser().parse(schema);
    GenericData.Record r = new GenericData.Record(s);
    for (int i = 0; i < fields.length; i += 2) {
      r.put((String) fields[i], fields[i + 1]);
    }
    AvroSerializer serializer = new AvroSerializer();
    serializer.configure(Map.of(SerdeConfig.REGISTRY_URL, registryUrl), false);
    try (KafkaProducer<String, Object> p = new KafkaProducer<>(Map.of("bootstrap.servers", kafka),
        new StringSerializer(), serializer)) {
      p.send(new ProducerRecord<>(topic, null, r)).get();
    }
  }

  @Test
  @Order(2)
  void aSinkReadingWithAReaderSchemaSendsWhatItCannotReadToItsDeadLetterQueue() throws Exception {
    String topic = pipeline.name + ".items";
    String sink = pipeline.name + "-items-sink";
    produce(topic, FLAT, "id", 1, "item", "pen", "qty", 2);
    Map<String, String> config = new LinkedHashMap<>(avro(Map.of(
        "connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector",
        "connection.url", SharedPostgres.jdbcUrl(pipeline.sinkDb),
        "connection.username", Pipeline.CDC_USER,
        "connection.password", Pipeline.CDC_PASSWORD,
        "insert.mode", "upsert",
        "primary.key.mode", "record_value",
        "primary.key.fields", "id",
        "schema.evolution", "basic",
        "topics", topic,
        "collection.name.format", "items")));
    config.put("value.converter." + AvroConverter.READER_SCHEMA_VERSION, "1");
    apply(sink, config);
    awaitItems("1:pen:2");

    // Someone forces an incompatible version in (qty becomes a string) and writes with it.
    registry.setCompatibility(topic + "-value", "NONE");
    String broken = FLAT.replace("{\"name\":\"qty\",\"type\":\"int\"}", "{\"name\":\"qty\",\"type\":\"string\"}");
    produce(topic, broken, "id", 2, "item", "ink", "qty", "two");
    int brokenId = registry.latest(topic + "-value").orElseThrow().id();
    produce(topic, FLAT, "id", 3, "item", "pad", "qty", 4);
    awaitItems("1:pen:2", "3:pad:4");

    ConsumerRecord<byte[], byte[]> dead = firstRecord(sink + ".dlq");
    assertEquals(String.valueOf(brokenId), header(dead, AvroConverter.SCHEMA_ID_HEADER));
    assertEquals("org.apache.kafka.connect.errors.DataException",
        header(dead, "__connect.errors.exception.class.name"));
    String message = header(dead, "__connect.errors.exception.message");
    assertTrue(message.contains("schema id " + brokenId) && message.contains("qty"), message);
    assertEquals(brokenId, java.nio.ByteBuffer.wrap(dead.value(), 1, 4).getInt(), "the raw record, as written");
    assertEquals("RUNNING", connect.status(sink).path("tasks").path(0).path("state").asText());

    // The tolerant reader: a writer with a field the reader lacks is read without it.
    config.put("value.converter." + AvroConverter.SCHEMA_MISMATCH, "ignore-unknown");
    apply(sink, config);
    produce(topic, FLAT.replace("]}", ",{\"name\":\"note\",\"type\":\"string\"}]}"), "id", 4, "item", "cup",
        "qty", 5, "note", "gift");
    awaitItems("1:pen:2", "3:pad:4", "4:cup:5");
    // Filling defaults: a writer without qty is read with qty 0.
    config.put("value.converter." + AvroConverter.SCHEMA_MISMATCH, "fill-default");
    apply(sink, config);
    produce(topic, FLAT.replace(",{\"name\":\"qty\",\"type\":\"int\"}", ""), "id", 5, "item", "mug");
    awaitItems("1:pen:2", "3:pad:4", "4:cup:5", "5:mug:0");

    Run inspect = PackagedSluice.run(dir, with("dlq", "inspect", sink + ".dlq", "--from-beginning", "-o", "json"));
    assertEquals(0, inspect.exit(), inspect::toString);
    JsonNode first = inspect.json().path("records").get(0);
    assertEquals(brokenId, first.path("schemaId").asInt(), inspect.out());
    assertEquals(topic + "-value", first.path("subject").asText(), inspect.out());
  }

  @Test
  @Order(3)
  void protobufAndJsonSchemaCarryTheSamePipeline() throws Exception {
    for (Map.Entry<String, String> format : Map.of("proto", "io.sluice.serde.connect.ProtobufConverter",
        "jsons", "io.sluice.serde.connect.JsonSchemaConverter").entrySet()) {
      Pipeline p = new Pipeline(format.getKey() + "_" + ProcessHandle.current().pid());
      p.execute(p.sourceDb, "ALTER TABLE public.orders ADD COLUMN placed_at timestamp(6), ADD COLUMN total numeric(10,2)");
      p.execute(p.sourceDb, "INSERT INTO public.orders SELECT g, 'item-' || g, g, '2026-11-25 07:00:00.123456', "
          + "g * 1.25 FROM generate_series(1, 30) g");
      apply(p.name + "-source", converted(p.sourceConfig(p.name + "_slot", Map.of()), format.getValue()));
      apply(p.name + "-sink", converted(p.sinkConfig(), format.getValue()));
      String row = "SELECT id || ':' || item || ':' || qty || ':' || placed_at::text || ':' || total FROM orders "
          + "ORDER BY id";
      List<String> expected = rows(p.sourceDb, row);
      assertEquals(Eventually.await(format.getKey() + ": the sink equal to the source", WAIT, () -> {
        try {
          return rows(p.sinkDb, row);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, expected::equals), expected, "microseconds and decimals intact");
      SchemaRegistryClient.SubjectVersion v = registry.latest(p.topic() + "-value").orElseThrow();
      assertEquals(format.getKey().equals("proto") ? "PROTOBUF" : "JSON", v.schema().type());
      p.execute(p.sourceDb, "UPDATE public.orders SET qty = 500 WHERE id = 2");
      p.execute(p.sourceDb, "DELETE FROM public.orders WHERE id = 3");
      List<String> after = rows(p.sourceDb, row);
      Eventually.await(format.getKey() + ": the update and the delete at the sink", WAIT, () -> {
        try {
          return rows(p.sinkDb, row);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, after::equals);
      connect.delete(p.name + "-sink");
      connect.delete(p.name + "-source");
    }
  }

  private static void awaitItems(String... expected) {
    Eventually.await("items at the sink " + List.of(expected), WAIT, () -> {
      try {
        return sinkRows("SELECT id || ':' || item || ':' || qty FROM items ORDER BY id");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, List.of(expected)::equals);
  }

  private static ConsumerRecord<byte[], byte[]> firstRecord(String topic) {
    return Eventually.await("a record in " + topic, WAIT, () -> {
      try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", kafka),
          new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
        TopicPartition tp = new TopicPartition(topic, 0);
        c.assign(List.of(tp));
        c.seekToBeginning(List.of(tp));
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofSeconds(2))) {
          return r;
        }
        return null;
      }
    }, r -> r != null);
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
    Header h = r.headers().lastHeader(key);
    assertNotNull(h, key + " missing; headers " + r.headers());
    return new String(h.value(), StandardCharsets.UTF_8);
  }
}
