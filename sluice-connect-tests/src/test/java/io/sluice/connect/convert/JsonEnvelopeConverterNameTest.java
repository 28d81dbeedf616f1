package io.sluice.connect.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.junit.jupiter.api.Test;

/** The JSON converter's old name, which stored connector configs still hold, keeps working as a plugin. */
@SuppressWarnings("deprecation")
class JsonEnvelopeConverterNameTest {
  private static final String OLD = "io.sluice.connect.convert.JsonEnvelopeConverter";
  private static final String NEW = "io.sluice.serde.connect.JsonEnvelopeConverter";

  @Test
  void bothNamesAreFoundAsPluginsTheWayTheWorkerLooksForThem() {
    for (Class<?> kind : List.of(Converter.class, HeaderConverter.class)) {
      List<String> found = ServiceLoader.load(kind).stream().map(p -> p.type().getName()).toList();
      assertTrue(found.contains(OLD) && found.contains(NEW), kind.getSimpleName() + ": " + found);
    }
  }

  @Test
  void theOldNameWritesAndReadsTheSameBytes() {
    Schema schema = SchemaBuilder.struct().name("shop.orders").field("id", Schema.INT64_SCHEMA)
        .field("note", Schema.OPTIONAL_STRING_SCHEMA).build();
    Struct value = new Struct(schema).put("id", 7L).put("note", "leave at the door");
    JsonEnvelopeConverter old = new JsonEnvelopeConverter();
    old.configure(Map.of(), false);
    io.sluice.serde.connect.JsonEnvelopeConverter current = new io.sluice.serde.connect.JsonEnvelopeConverter();
    current.configure(Map.of(), false);
    byte[] written = current.fromConnectData("t", schema, value);
    assertArrayEquals(written, old.fromConnectData("t", schema, value));
    assertEquals(value, old.toConnectData("t", written).value());
  }
}
