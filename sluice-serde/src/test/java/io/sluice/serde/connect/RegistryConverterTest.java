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
}
