package io.sluice.serde.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.kafka.testing.SharedKafka;
import io.sluice.serde.SerdeConfig;
import io.sluice.serde.testing.SharedRegistry;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What the three registry converters share, each against Sluice's registry. */
class RegistryConverterTest {
  static Stream<Supplier<RegistryConverter>> converters() {
    return Stream.of(AvroConverter::new, ProtobufConverter::new, JsonSchemaConverter::new);
  }

  /**
   * The same schema written to a second topic is registered under that topic's subject too: its id was known, but a
   * subject that is never registered has no compatibility check and no version to read with.
   */
  @ParameterizedTest
  @MethodSource("converters")
  void theSameSchemaInASecondTopicIsRegisteredUnderItsSubject(Supplier<RegistryConverter> converter) {
    RegistryConverter writer = converter.get();
    writer.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    String first = SharedKafka.unique("shared.a");
    String second = SharedKafka.unique("shared.b");
    Schema row = SchemaBuilder.struct().name("shared.Row").field("id", Schema.INT32_SCHEMA).build();
    writer.fromConnectData(first, row, new Struct(row).put("id", 1));
    writer.fromConnectData(second, row, new Struct(row).put("id", 2));
    assertEquals(SharedRegistry.client().latest(first + "-value").orElseThrow().id(),
        SharedRegistry.client().latest(second + "-value").orElseThrow().id(), writer.getClass().getSimpleName());
  }

  /**
   * The latest schema of a topic's value subject reads back as the converter reads records written with it, Connect
   * parameters and all; a topic with no schema, one whose subject holds another format, and a record-name strategy
   * (whose subject the topic alone does not name) have none.
   */
  @ParameterizedTest
  @MethodSource("converters")
  void theLatestSchemaOfATopicIsReadWithoutARecord(Supplier<RegistryConverter> converter) {
    RegistryConverter writer = converter.get();
    writer.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    String topic = SharedKafka.unique("latest.t");
    Schema row = SchemaBuilder.struct().name("latest.Row").field("id", Schema.INT32_SCHEMA)
        .field("x", SchemaBuilder.float64().optional().parameter("__debezium.source.column.type", "FLOAT8").build())
        .build();
    assertEquals(java.util.Optional.empty(), writer.latestSchema(topic), "nothing registered yet");
    writer.fromConnectData(topic, row, new Struct(row).put("id", 1));
    Schema read = writer.latestSchema(topic).orElseThrow();
    assertEquals("FLOAT8", read.field("x").schema().parameters().get("__debezium.source.column.type"));

    RegistryConverter other = writer instanceof AvroConverter ? new JsonSchemaConverter() : new AvroConverter();
    other.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    assertEquals(java.util.Optional.empty(), other.latestSchema(topic), "another format's subject");

    RegistryConverter byRecord = converter.get();
    byRecord.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url(), SerdeConfig.VALUE_STRATEGY,
        "io.confluent.kafka.serializers.subject.RecordNameStrategy"), false);
    assertEquals(java.util.Optional.empty(), byRecord.latestSchema(topic), "a record-name strategy");
  }
}
