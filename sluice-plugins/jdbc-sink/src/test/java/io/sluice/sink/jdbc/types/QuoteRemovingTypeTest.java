package io.sluice.sink.jdbc.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.data.Schema;
import org.junit.jupiter.api.Test;

/** The type binds what Debezium's own range and tsvector types bind, value for value. */
class QuoteRemovingTypeTest {
  private static final String[] VALUES = {"[1,5)", "empty", "(,)", "[\"2026-01-01 00:00:00\",\"2026-02-01 00:00:00\")",
      "'a':1 'b''s':2A 'fat' 'rat'", "\"'\"'\"", "", "no quotes at all", "[\"x\\\\\"y\",)", "é😀'\""};

  @Test
  void bindsAsDebeziumsRangeAndTsvectorTypes() throws ReflectiveOperationException {
    for (String name : List.of("RangeType", "TsvectorType")) {
      JdbcType debezium = debeziums(name);
      QuoteRemovingType ours = QuoteRemovingType.over(debezium).orElseThrow();
      for (String value : VALUES) {
        assertEquals(bound(debezium.bind(3, Schema.OPTIONAL_STRING_SCHEMA, value)),
            bound(ours.bind(3, Schema.OPTIONAL_STRING_SCHEMA, value)), name + ": " + value);
      }
      assertEquals(bound(debezium.bind(1, Schema.OPTIONAL_STRING_SCHEMA, null)),
          bound(ours.bind(1, Schema.OPTIONAL_STRING_SCHEMA, null)), name + ": null");
    }
    assertTrue(QuoteRemovingType.over(new ArrayText()).isEmpty(), "any other type stays as it is");
  }

  private static JdbcType debeziums(String simpleName) throws ReflectiveOperationException {
    var constructor = Class.forName("io.debezium.connector.jdbc.dialect.postgres." + simpleName)
        .getDeclaredConstructor();
    constructor.setAccessible(true);
    return (JdbcType) constructor.newInstance();
  }

  private static List<Object> bound(List<ValueBindDescriptor> descriptors) {
    List<Object> out = new ArrayList<>();
    for (ValueBindDescriptor d : descriptors) {
      out.add(d.getIndex() + ":" + d.getValue() + ":" + d.getTargetSqlType());
    }
    return out;
  }
}
