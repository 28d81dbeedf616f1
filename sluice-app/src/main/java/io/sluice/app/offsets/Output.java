package io.sluice.app.offsets;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import picocli.CommandLine;

/** {@code -o table} (the default, for people) or {@code -o json} (for machines) on stdout. */
final class Output {
  // snake_case like the backup manifest and Kafka Connect's own JSON.
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
      .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .registerModule(new SimpleModule()
          .addSerializer(Path.class, new ToStringSerializer<>())
          .addSerializer(Instant.class, new ToStringSerializer<>())
          .addSerializer(Duration.class, new JsonSerializer<>() {
            @Override
            public void serialize(Duration d, JsonGenerator g, SerializerProvider p) throws IOException {
              g.writeNumber(d.toMillis());
            }
          }));

  @CommandLine.Option(names = {"-o", "--output"}, defaultValue = "table", paramLabel = "FORMAT",
      description = "table or json (default ${DEFAULT-VALUE})")
  String format;

  void print(Object value, Supplier<String> table) {
    if ("json".equalsIgnoreCase(format)) {
      try {
        System.out.println(JSON.writeValueAsString(value));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    } else {
      System.out.print(table.get());
    }
    System.out.flush();
  }

  private static final class ToStringSerializer<T> extends JsonSerializer<T> {
    @Override
    public void serialize(T value, JsonGenerator g, SerializerProvider p) throws IOException {
      g.writeString(value.toString());
    }
  }
}
