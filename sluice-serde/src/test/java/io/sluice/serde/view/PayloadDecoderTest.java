package io.sluice.serde.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.schema.protobuf.ProtoDescriptors;
import io.sluice.serde.SerdeConfig;
import io.sluice.serde.avro.AvroSerializer;
import io.sluice.serde.jsonschema.JsonSchemaSerializer;
import io.sluice.serde.protobuf.ProtobufSerializer;
import io.sluice.serde.testing.SharedRegistry;
import io.sluice.serde.view.PayloadDecoder.Decoded;
import io.sluice.serde.view.PayloadDecoder.Format;
import io.sluice.registry.client.WireFormat;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/** Which decoding a payload gets, and what it shows: each format written by Sluice's serializers. */
class PayloadDecoderTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final PayloadDecoder decoder = new PayloadDecoder(SharedRegistry.client());

  private static Map<String, Object> config() {
    return Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url());
  }

  @Test
  void avroIsDecodedWithItsSubjectVersionAndId() throws Exception {
    String topic = SharedKafka.unique("decode-avro");
    Schema schema = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
        + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"item\",\"type\":\"string\"}]}");
    GenericRecord r = new GenericData.Record(schema);
    r.put("id", 7);
    r.put("item", "tea");
    AvroSerializer serializer = new AvroSerializer();
    serializer.configure(config(), false);
    byte[] bytes = serializer.serialize(topic, r);

    Decoded d = decoder.decode(bytes, topic, false);
    assertEquals(Format.AVRO, d.format());
    assertEquals(JSON.readTree("{\"id\":7,\"item\":\"tea\"}"), JSON.readTree(d.text()));
    assertEquals(WireFormat.schemaIdOrNull(bytes), d.schemaId());
    assertEquals("AVRO", d.schemaType());
    assertEquals(topic + "-value", d.subject());
    assertEquals(1, d.version());
    assertNull(d.note());
  }

  @Test
  void protobufIsDecodedToItsJsonMapping() throws Exception {
    String topic = SharedKafka.unique("decode-proto");
    FileDescriptor file = ProtoDescriptors.build("order.proto", """
        syntax = "proto3";
        message Order {
          int64 id = 1;
          string item = 2;
          repeated string tags = 3;
          map<string, int32> counts = 4;
          Status status = 5;
          enum Status { PLACED = 0; PAID = 1; }
        }
        """, path -> null);
    Descriptor order = file.findMessageTypeByName("Order");
    Descriptor entry = order.findFieldByName("counts").getMessageType();
    DynamicMessage m = DynamicMessage.newBuilder(order).setField(order.findFieldByName("id"), 42L)
        .setField(order.findFieldByName("item"), "tea").addRepeatedField(order.findFieldByName("tags"), "green")
        .addRepeatedField(order.findFieldByName("counts"), DynamicMessage.newBuilder(entry)
            .setField(entry.findFieldByName("key"), "cups").setField(entry.findFieldByName("value"), 2).build())
        .setField(order.findFieldByName("status"), order.findEnumTypeByName("Status").findValueByName("PAID"))
        .build();
    ProtobufSerializer serializer = new ProtobufSerializer();
    serializer.configure(config(), false);

    Decoded d = decoder.decode(serializer.serialize(topic, m), topic, false);
    assertEquals(Format.PROTOBUF, d.format(), d::toString);
    JsonNode json = JSON.readTree(d.text());
    assertEquals("42", json.path("id").asText());
    assertTrue(json.path("id").isTextual(), "64-bit integers as strings, as protobuf's JSON mapping writes them");
    assertEquals("tea", json.path("item").asText());
    assertEquals("green", json.path("tags").get(0).asText());
    assertEquals(2, json.path("counts").path("cups").asInt());
    assertEquals("PAID", json.path("status").asText());
    assertEquals(topic + "-value", d.subject());
  }

  @Test
  void jsonSchemaPayloadsAreTheirJsonText() throws Exception {
    String topic = SharedKafka.unique("decode-json");
    JsonSchemaSerializer serializer = new JsonSchemaSerializer();
    serializer.configure(config(), true);
    JsonNode envelope = JSON.readTree("{\"schema\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"}}},"
        + "\"payload\":{\"id\":5}}");
    Decoded d = decoder.decode(serializer.serialize(topic, envelope), topic, true);
    assertEquals(Format.JSON_SCHEMA, d.format(), d::toString);
    assertEquals(JSON.readTree("{\"id\":5}"), JSON.readTree(d.text()));
    assertEquals(topic + "-key", d.subject());
  }

  @Test
  void unframedPayloadsAreConnectJsonJsonTextOrHex() {
    Decoded connect = decoder.decode(("{\"schema\":{\"type\":\"struct\",\"name\":\"shop.Order\",\"fields\":[]},"
        + "\"payload\":{\"id\":1}}").getBytes(StandardCharsets.UTF_8));
    assertEquals(Format.CONNECT_JSON, connect.format());
    assertEquals("{\"id\":1}", connect.text());
    assertEquals("schema shop.Order", connect.note());
    assertEquals(Format.JSON, decoder.decode("{\"id\":1}".getBytes(StandardCharsets.UTF_8)).format());
    assertEquals(Format.JSON, decoder.decode("[1,2]".getBytes(StandardCharsets.UTF_8)).format());
    Decoded broken = decoder.decode("{\"not json".getBytes(StandardCharsets.UTF_8));
    assertEquals(Format.TEXT, broken.format(), "JSON that does not parse is text");
    assertEquals("{\"not json", broken.text());
    assertEquals(Format.TEXT, decoder.decode("hello".getBytes(StandardCharsets.UTF_8)).format());
    Decoded bytes = decoder.decode(new byte[] {(byte) 0xff, 0x00, 0x10});
    assertEquals(Format.BYTES, bytes.format());
    assertEquals("ff0010", bytes.text());
    assertEquals(Format.NULL, decoder.decode(null).format());
  }

  @Test
  void aFramedPayloadTheRegistryDoesNotKnowIsHexWithTheReason() {
    byte[] framed = WireFormat.frame(987_654, new byte[] {1, 2, 3});
    Decoded d = decoder.decode(framed, "t", false);
    assertEquals(Format.BYTES, d.format());
    assertEquals(987_654, d.schemaId());
    assertTrue(d.note().contains("not found"), d.note());
    Decoded offline = new PayloadDecoder(null).decode(framed);
    assertEquals(Format.BYTES, offline.format());
    assertTrue(offline.note().contains("no registry"), offline.note());
  }
}
