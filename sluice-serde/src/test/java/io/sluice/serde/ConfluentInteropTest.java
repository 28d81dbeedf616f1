package io.sluice.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.kafka.testing.RequiredTool;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.serde.testing.SharedRegistry;
import io.sluice.serde.avro.AvroDeserializer;
import io.sluice.serde.avro.AvroSerializer;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.serde.connect.AvroConverter;
import io.sluice.serde.connect.JsonSchemaConverter;
import io.sluice.serde.jsonschema.JsonSchemaDeserializer;
import io.sluice.serde.jsonschema.JsonSchemaSerializer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sluice's serdes against Confluent's own, unchanged: the npm package {@code @confluentinc/schemaregistry} (Avro,
 * Protobuf and JSON Schema serializers and deserializers) reads what Sluice wrote and Sluice reads what it wrote, both
 * on Sluice's registry. Its dependencies are installed with {@code npm ci} from the lock file in {@code src/test/node} on first
 * run; without Node the test is skipped on a developer machine and fails under {@code CI} (where {@code .ci/run}
 * installs Node).
 */
class ConfluentInteropTest {
  private static final Path DIR = Path.of("src/test/node");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HexFormat HEX = HexFormat.of();
  private static SchemaRegistryClient client;

  @BeforeAll
  static void start() throws Exception {
    RequiredTool.require("node", "Debian package nodejs");
    RequiredTool.require("npm", "Debian package npm");
    if (!Files.isDirectory(DIR.resolve("node_modules/@confluentinc/schemaregistry"))) {
      List<String> install = node(List.of("npm", "ci", "--no-audit", "--no-fund"), 300);
      assertEquals("0", install.get(0), "npm ci failed: " + install.get(1));
    }
    client = SharedRegistry.client();
  }


  private static String confluent(String mode, String format, String topic, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("node", "interop.js", mode, SharedRegistry.url(), format, topic));
    command.addAll(List.of(args));
    List<String> r = node(command, 120);
    assertEquals("0", r.get(0), "node interop.js " + mode + " " + format + ": " + r.get(1));
    return r.get(1).lines().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElseThrow().trim();
  }

  private static final Schema ORDER = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\","
      + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"item\",\"type\":\"string\"},"
      + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}]}");

  @Test
  void avroWrittenBySluiceIsReadByConfluentAndTheOtherWay() throws Exception {
    String topic = SharedKafka.unique("interop-avro");
    AvroSerializer serializer = new AvroSerializer();
    serializer.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    GenericRecord order = new GenericData.Record(ORDER);
    order.put("id", 42L);
    order.put("item", "tea");
    order.put("note", "green");
    byte[] ours = serializer.serialize(topic, order);
    JsonNode read = JSON.readTree(confluent("read", "avro", topic, HEX.formatHex(ours)));
    assertEquals(42, read.path("id").asLong());
    assertEquals("tea", read.path("item").asText());
    assertEquals("green", read.path("note").asText(), read.toString());

    byte[] theirs = HEX.parseHex(confluent("write", "avro", topic, "{\"id\":7,\"item\":\"ink\",\"note\":null}"));
    assertEquals(HEX.formatHex(ours, 0, 5), HEX.formatHex(theirs, 0, 5), "same magic byte and schema id");
    AvroDeserializer deserializer = new AvroDeserializer();
    deserializer.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    GenericRecord back = (GenericRecord) deserializer.deserialize(topic, theirs);
    assertEquals(7L, back.get("id"));
    assertEquals("ink", back.get("item").toString());
  }

  private static final String PROTO = """
      syntax = "proto3";
      package shop;
      message Order {
        int64 id = 1;
        string item = 2;
        optional string note = 3;
        repeated Line lines = 4;
        message Line {
          string sku = 1;
          int32 qty = 2;
        }
      }
      """;

  /** Confluent's Protobuf client reads schemas as serialized descriptors (format=serialized), which the registry serves. */
  @Test
  void protobufWrittenBySluiceIsReadByConfluentAndTheOtherWay() throws Exception {
    String topic = SharedKafka.unique("interop-proto");
    com.google.protobuf.Descriptors.Descriptor order = io.sluice.schema.protobuf.ProtoDescriptors
        .build("shop/order.proto", PROTO, path -> null).findMessageTypeByName("Order");
    com.google.protobuf.Descriptors.Descriptor line = order.findNestedTypeByName("Line");
    com.google.protobuf.DynamicMessage ours = com.google.protobuf.DynamicMessage.newBuilder(order)
        .setField(order.findFieldByName("id"), 42L).setField(order.findFieldByName("item"), "tea")
        .addRepeatedField(order.findFieldByName("lines"), com.google.protobuf.DynamicMessage.newBuilder(line)
            .setField(line.findFieldByName("sku"), "T-1").setField(line.findFieldByName("qty"), 3).build())
        .build();
    io.sluice.serde.protobuf.ProtobufSerializer serializer = new io.sluice.serde.protobuf.ProtobufSerializer();
    serializer.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    byte[] bytes = serializer.serialize(topic, ours);
    JsonNode read = JSON.readTree(confluent("read", "protobuf", topic, HEX.formatHex(bytes)));
    assertEquals(JSON.readTree("{\"id\":\"42\",\"item\":\"tea\",\"lines\":[{\"sku\":\"T-1\",\"qty\":3}]}"), read);

    byte[] theirs = HEX.parseHex(confluent("write", "protobuf", topic,
        "{\"id\":\"7\",\"item\":\"ink\",\"note\":\"blue\",\"lines\":[{\"sku\":\"I-2\",\"qty\":1}]}", "shop.Order"));
    assertEquals(HEX.formatHex(bytes, 0, 6), HEX.formatHex(theirs, 0, 6), "same id, same index path [0]");
    io.sluice.serde.protobuf.ProtobufDeserializer deserializer = new io.sluice.serde.protobuf.ProtobufDeserializer();
    deserializer.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    com.google.protobuf.DynamicMessage back = deserializer.deserialize(topic, theirs);
    assertEquals(7L, back.getField(back.getDescriptorForType().findFieldByName("id")));
    assertEquals("blue", back.getField(back.getDescriptorForType().findFieldByName("note")));
    assertEquals(1, back.getRepeatedFieldCount(back.getDescriptorForType().findFieldByName("lines")));
  }

  /** A Debezium-shaped change event, trimmed to what the readers are asked about. */
  private static final org.apache.kafka.connect.data.Schema ROW = SchemaBuilder.struct()
      .name("shop.public.orders.Value").optional()
      .field("id", org.apache.kafka.connect.data.Schema.INT32_SCHEMA)
      .field("placed_at", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").version(1).build())
      .build();
  private static final org.apache.kafka.connect.data.Schema ENVELOPE = SchemaBuilder.struct()
      .name("shop.public.orders.Envelope")
      .field("before", ROW).field("after", ROW).field("op", org.apache.kafka.connect.data.Schema.STRING_SCHEMA)
      .build();

  private static Struct created() {
    return new Struct(ENVELOPE).put("after", new Struct(ROW).put("id", 5).put("placed_at", 1_764_054_000_123_456L))
        .put("op", "c");
  }

  @Test
  void aConnectChangeEventFromTheAvroConverterIsReadByConfluent() throws Exception {
    String topic = SharedKafka.unique("interop-connect");
    AvroConverter converter = new AvroConverter();
    converter.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    byte[] bytes = converter.fromConnectData(topic, ENVELOPE, created());
    JsonNode read = JSON.readTree(confluent("read", "avro", topic, HEX.formatHex(bytes)));
    assertEquals("c", read.path("op").asText(), read.toString());
    assertTrue(read.path("before").isNull(), read.toString());
    JsonNode after = read.path("after").has("shop.public.orders.Value") ? read.path("after")
        .path("shop.public.orders.Value") : read.path("after");
    assertEquals(5, after.path("id").asInt(), read.toString());
    assertEquals(1_764_054_000_123_456L, after.path("placed_at").asLong(), read.toString());
  }

  @Test
  void aConnectChangeEventFromTheJsonSchemaConverterIsReadByConfluent() throws Exception {
    String topic = SharedKafka.unique("interop-connect-json");
    JsonSchemaConverter converter = new JsonSchemaConverter();
    converter.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    byte[] bytes = converter.fromConnectData(topic, ENVELOPE, created());
    JsonNode read = JSON.readTree(confluent("read", "json", topic, HEX.formatHex(bytes)));
    assertEquals(JSON.readTree("{\"before\":null,\"after\":{\"id\":5,\"placed_at\":1764054000123456},"
        + "\"op\":\"c\"}"), read);
  }

  @Test
  void jsonSchemaWrittenBySluiceIsReadByConfluentAndTheOtherWay() throws Exception {
    String topic = SharedKafka.unique("interop-json");
    String schema = "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"title\":\"shop.Order\","
        + "\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"item\":{\"type\":\"string\"}},"
        + "\"required\":[\"id\",\"item\"],\"additionalProperties\":false}";
    JsonSchemaSerializer serializer = new JsonSchemaSerializer();
    serializer.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url(), JsonSchemaSerializer.FAIL_INVALID_SCHEMA,
        "true"), false);
    byte[] ours = serializer.serialize(topic, JSON.readTree("{\"schema\":" + schema
        + ",\"payload\":{\"id\":1,\"item\":\"pen\"}}"));
    assertEquals(1, client.versions(topic + "-value").size());
    JsonNode read = JSON.readTree(confluent("read", "json", topic, HEX.formatHex(ours)));
    assertEquals(JSON.readTree("{\"id\":1,\"item\":\"pen\"}"), read);

    byte[] theirs = HEX.parseHex(confluent("write", "json", topic, "{\"id\":2,\"item\":\"cup\"}"));
    JsonSchemaDeserializer deserializer = new JsonSchemaDeserializer();
    deserializer.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url(), JsonSchemaSerializer.FAIL_INVALID_SCHEMA,
        "true"), false);
    assertEquals(JSON.readTree("{\"id\":2,\"item\":\"cup\"}"), deserializer.deserialize(topic, theirs));
    // Both sides validate: a payload the schema refuses is refused by ours before anything is written.
    org.apache.kafka.common.errors.SerializationException refused = org.junit.jupiter.api.Assertions.assertThrows(
        org.apache.kafka.common.errors.SerializationException.class, () -> serializer.serialize(topic,
            JSON.readTree("{\"schema\":" + schema + ",\"payload\":{\"id\":\"three\",\"item\":\"pad\"}}")));
    assertTrue(refused.getMessage().contains("Validation error"), refused.getMessage());
  }

  /** Runs a command in the node folder: [exit code, output]. */
  private static List<String> node(List<String> command, int timeoutSeconds) throws IOException,
      InterruptedException {
    Path log = Files.createTempFile("sluice-node", ".log");
    Process p = new ProcessBuilder(command).directory(DIR.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return List.of("-1", "timed out: " + command);
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    Files.deleteIfExists(log);
    return new ArrayList<>(List.of(String.valueOf(p.exitValue()), out));
  }
}
