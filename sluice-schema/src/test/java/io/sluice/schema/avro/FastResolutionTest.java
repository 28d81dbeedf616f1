package io.sluice.schema.avro;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.junit.jupiter.api.Test;

/** The fast path may only ever say "readable" where Avro's own check agrees; checked over every pair of a corpus. */
class FastResolutionTest {
  private static final String[] FIELD_TYPES = {
      "\"int\"", "\"long\"", "\"float\"", "\"double\"", "\"string\"", "\"bytes\"", "\"boolean\"", "\"null\"",
      "[\"null\",\"string\"]", "[\"string\",\"null\"]", "[\"null\",\"int\",\"string\"]", "[\"null\",\"long\"]",
      "{\"type\":\"array\",\"items\":\"int\"}", "{\"type\":\"array\",\"items\":\"long\"}",
      "{\"type\":\"map\",\"values\":\"string\"}", "{\"type\":\"map\",\"values\":\"bytes\"}",
      "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}",
      "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\",\"C\"]}",
      "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\",\"C\"],\"default\":\"A\"}",
      "{\"type\":\"enum\",\"name\":\"x.E\",\"symbols\":[\"A\",\"B\"]}",
      "{\"type\":\"fixed\",\"name\":\"F\",\"size\":4}", "{\"type\":\"fixed\",\"name\":\"F\",\"size\":8}",
      "{\"type\":\"record\",\"name\":\"N\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}",
      "{\"type\":\"record\",\"name\":\"N\",\"fields\":[{\"name\":\"x\",\"type\":\"long\"}]}",
      "{\"type\":\"record\",\"name\":\"N\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"},{\"name\":\"y\",\"type\":\"int\"}]}",
      "{\"type\":\"record\",\"name\":\"N\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"},{\"name\":\"y\",\"type\":\"int\",\"default\":0}]}",
      "{\"type\":\"record\",\"name\":\"M\",\"aliases\":[\"N\"],\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}",
      "{\"type\":\"record\",\"name\":\"L\",\"fields\":[{\"name\":\"next\",\"type\":[\"null\",\"L\"],\"default\":null}]}",
  };

  private static List<Schema> corpus() {
    List<Schema> out = new ArrayList<>();
    for (String type : FIELD_TYPES) {
      out.add(new Schema.Parser().parse(type));
      for (String extra : new String[] {"", ",{\"name\":\"b\",\"type\":\"int\",\"default\":1}", ",{\"name\":\"b\",\"type\":\"int\"}",
          ",{\"name\":\"c\",\"type\":\"string\",\"aliases\":[\"b\"],\"default\":\"\"}"}) {
        out.add(new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":" + type + "}"
            + extra + "]}"));
      }
    }
    return out;
  }

  @Test
  void neverSaysReadableWhereAvroDisagrees() {
    List<Schema> schemas = corpus();
    int fastYes = 0;
    for (Schema reader : schemas) {
      for (Schema writer : schemas) {
        if (FastResolution.surelyReadable(reader, writer)) {
          fastYes++;
          SchemaCompatibility.SchemaCompatibilityType avro =
              SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getType();
          assertTrue(avro == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE,
              "fast path said readable, Avro did not: reader " + reader + " writer " + writer);
        }
      }
    }
    assertTrue(fastYes > schemas.size(), "the fast path should answer most compatible pairs itself, answered " + fastYes);
  }
}
