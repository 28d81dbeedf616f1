package io.sluice.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What the console's DLQ and silence tests look at beside the page: a small topic's records with their headers, as
 * Kafka holds them; the router's silences and alerts over its API v2; a console POST as the page sends it.
 */
final class ConsoleOperations {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private ConsoleOperations() {}

  /** Every record of a small topic, read to its end. */
  static List<ConsumerRecord<byte[], byte[]>> records(String bootstrap, String topic) {
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
        "enable.auto.commit", "false"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
          .map(p -> new TopicPartition(topic, p.partition())).toList();
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps);
      List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read " + topic + " to its end " + end);
        }
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
      return out;
    }
  }

  /** A value framed for the registry as Sluice's Avro serializer writes it (schema under {@code <topic>-value}). */
  record Framed(int schemaId, byte[] bytes) {}

  static Framed avro(String registryUrl, String topic, String item) throws Exception {
    // A record name of this topic's own: the registry gives an identical schema the id it already has under another
    // subject (as Confluent's does), and the page then names that subject, not this topic's.
    String schema = "{\"type\":\"record\",\"name\":\"Order_" + topic.replaceAll("[^A-Za-z0-9_]", "_")
        + "\",\"namespace\":\"shop\",\"fields\":["
        + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"item\",\"type\":\"string\"}]}";
    HttpResponse<String> registered = HTTP.send(HttpRequest.newBuilder(URI.create(registryUrl + "/subjects/"
            + topic + "-value/versions")).header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.createObjectNode().put("schema", schema).toString())).build(),
        HttpResponse.BodyHandlers.ofString());
    if (registered.statusCode() != 200) {
      throw new AssertionError("the registry refused the schema: " + registered.body());
    }
    org.apache.avro.Schema avro = new org.apache.avro.Schema.Parser().parse(schema);
    org.apache.avro.generic.GenericRecord r = new org.apache.avro.generic.GenericData.Record(avro);
    r.put("id", 1);
    r.put("item", item);
    io.sluice.serde.avro.AvroSerializer serializer = new io.sluice.serde.avro.AvroSerializer();
    serializer.configure(Map.of("schema.registry.url", registryUrl), false);
    return new Framed(JSON.readTree(registered.body()).path("id").asInt(), serializer.serialize(topic, r));
  }

  /** Records held: each partition's end less its start. */
  static long count(String bootstrap, String topic) {
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      var parts = c.partitionsFor(topic, Duration.ofSeconds(30));
      if (parts == null || parts.isEmpty()) {
        return 0;
      }
      List<TopicPartition> tps = parts.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      Map<TopicPartition, Long> begin = c.beginningOffsets(tps);
      return c.endOffsets(tps).entrySet().stream().mapToLong(e -> e.getValue() - begin.get(e.getKey())).sum();
    }
  }

  /** A header's value as text, or null. */
  static String header(ConsumerRecord<byte[], byte[]> r, String key) {
    Header h = r.headers().lastHeader(key);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /** Fires alerts on the router as Prometheus does ({@code POST /api/v2/alerts}), each for the next hour. */
  static void fire(String alertsUrl, List<Map<String, String>> labels) throws Exception {
    ArrayNode body = JSON.createArrayNode();
    Instant now = Instant.now();
    for (Map<String, String> l : labels) {
      ObjectNode a = body.addObject();
      a.set("labels", JSON.valueToTree(l));
      a.putObject("annotations").put("summary", l.get("alertname") + " on " + l.get("connector"));
      a.put("startsAt", now.minusSeconds(60).toString()).put("endsAt", now.plusSeconds(3600).toString())
          .put("generatorURL", "http://prometheus.example/graph");
    }
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(alertsUrl + "/api/v2/alerts"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body.toString()))
        .build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new AssertionError("the router refused the alerts: " + r.statusCode() + " " + r.body());
    }
  }

  /** The router's silences, as its API v2 lists them. */
  static JsonNode silences(String alertsUrl) throws Exception {
    return JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(alertsUrl + "/api/v2/silences")).build(),
        HttpResponse.BodyHandlers.ofString()).body());
  }

  /** The silence whose comment is {@code comment}, or null. */
  static JsonNode silenceCommented(String alertsUrl, String comment) throws Exception {
    JsonNode found = null;
    for (JsonNode s : silences(alertsUrl)) {
      if (s.path("comment").asText().equals(comment)) {
        found = s;
      }
    }
    return found;
  }

  /** A console POST as the page sends it, with a session's cookie and the given CSRF token. */
  static HttpResponse<String> post(String ui, String cookie, String csrf, String path, Object body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(ui + path)).header("Cookie", cookie)
        .header("X-CSRF-Token", csrf).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A console GET with a session's cookie, its JSON. */
  static JsonNode get(String ui, String cookie, String path) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(ui + path)).header("Cookie", cookie).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new AssertionError(path + ": " + r.statusCode() + " " + r.body());
    }
    return JSON.readTree(r.body());
  }
}
