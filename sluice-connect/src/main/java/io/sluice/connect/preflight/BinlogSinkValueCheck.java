package io.sluice.connect.preflight;

import io.sluice.connect.defaults.ConnectorDefaults;
import io.sluice.serde.SerdeConfig;
import io.sluice.serde.connect.AvroConverter;
import io.sluice.serde.connect.JsonSchemaConverter;
import io.sluice.serde.connect.ProtobufConverter;
import io.sluice.serde.connect.RegistryConverter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;

/**
 * Before a Sluice JDBC sink into MariaDB or MySQL is created, updated or validated: a warning, never a refusal, naming
 * the fields of its topics that come from PostgreSQL columns able to hold a value no MariaDB or MySQL column can: NaN
 * and ±Infinity in {@code real}, {@code double precision} and {@code numeric}, {@code infinity} and
 * {@code -infinity} in {@code date}, {@code timestamp} and {@code timestamptz}. The sink refuses a record holding one
 * at run time, by name (to its dead letter queue, or the task fails); this says so before data flows. A warning: most
 * such columns never hold one, and only the source can keep them out.
 *
 * <p>The check sees what the schema registry knows: the latest version of each topic's value subject
 * ({@code <topic>-value}), read as the sink's own {@code value.converter} (one of Sluice's registry converters) reads
 * it, with its {@code value.converter.*} settings; the fields' source types are the ones Sluice's sources carry
 * ({@code column.propagate.source.type}). A topic with no schema yet, a sink whose records carry their schemas inline
 * (Connect's JSON) and a registry that cannot be read get no warning; no record is read.
 */
public final class BinlogSinkValueCheck {
  static final String SOURCE_TYPE = "__debezium.source.column.type";
  private static final String POSTGRES_SOURCE = "io.debezium.connector.postgresql.Source";
  private static final Set<String> FLOATING = Set.of("FLOAT4", "FLOAT8", "NUMERIC");
  private static final Set<String> TEMPORAL = Set.of("DATE", "TIMESTAMP", "TIMESTAMPTZ");
  /** Source types only PostgreSQL's connector writes, judged where a record's envelope does not name its source. */
  private static final Set<String> POSTGRES_ONLY = Set.of("FLOAT4", "FLOAT8", "TIMESTAMPTZ");
  private static final Map<String, Supplier<RegistryConverter>> CONVERTERS = Map.of(
      AvroConverter.class.getName(), AvroConverter::new,
      ProtobufConverter.class.getName(), ProtobufConverter::new,
      JsonSchemaConverter.class.getName(), JsonSchemaConverter::new);
  private static final String VALUE_CONVERTER = "value.converter";
  /** Names more than this many fields by count only, so the warning stays one readable line. */
  static final int NAMED = 12;

  private BinlogSinkValueCheck() {}

  /** Whether the check applies to a connector of this class writing to this JDBC URL. */
  public static boolean appliesTo(String connectorClass, String connectionUrl) {
    return ConnectorDefaults.SLUICE_JDBC_SINK.equals(connectorClass) && connectionUrl != null
        && (connectionUrl.startsWith("jdbc:mariadb:") || connectionUrl.startsWith("jdbc:mysql:"));
  }

  /** A field of a topic's value whose source column can hold a value the target cannot. */
  record Unholdable(String topic, String field, String type) {
    boolean floating() {
      return FLOATING.contains(type.toUpperCase(Locale.ROOT));
    }
  }

  /**
   * The warning for a sink config (its converter's secrets clear values); empty where no topic's schema has such a
   * field, and where the schemas cannot be had ({@code skipped} is told why).
   */
  public static Optional<String> warning(Map<String, String> config, Consumer<String> skipped) {
    String converterClass = config.get(VALUE_CONVERTER);
    Supplier<RegistryConverter> make = converterClass == null ? null : CONVERTERS.get(converterClass.trim());
    if (make == null) {
      skipped.accept("its value.converter (" + (converterClass == null ? "the worker's" : converterClass)
          + ") keeps no schemas in a registry");
      return Optional.empty();
    }
    Map<String, String> settings = new HashMap<>();
    config.forEach((k, v) -> {
      if (k.startsWith(VALUE_CONVERTER + ".") && v != null) {
        settings.put(k.substring(VALUE_CONVERTER.length() + 1), v);
      }
    });
    List<Unholdable> found = new ArrayList<>();
    try {
      RegistryConverter converter = make.get();
      converter.configure(settings, false);
      for (String topic : topics(config, settings)) {
        converter.latestSchema(topic)
            .ifPresent(schema -> found.addAll(unholdable(topic, schema)));
      }
    } catch (RuntimeException e) {
      skipped.accept("cannot read its topics' schemas from the registry: " + firstLine(e.getMessage()));
      return Optional.empty();
    }
    return found.isEmpty() ? Optional.empty() : Optional.of(message(config, found));
  }

  /**
   * The sink's topics: {@code topics}, or the topics of the registry's value subjects that {@code topics.regex}
   * matches.
   */
  private static List<String> topics(Map<String, String> config, Map<String, String> converterSettings) {
    List<String> out = new ArrayList<>();
    String listed = config.get("topics");
    if (listed != null && !listed.isBlank()) {
      for (String t : listed.split(",")) {
        if (!t.isBlank()) {
          out.add(t.trim());
        }
      }
      return out;
    }
    String regex = config.get("topics.regex");
    if (regex == null || regex.isBlank()) {
      return out;
    }
    Pattern pattern;
    try {
      pattern = Pattern.compile(regex.trim());
    } catch (PatternSyntaxException e) {
      return out; // Connect refuses the config itself
    }
    for (String subject : SerdeConfig.of(converterSettings, false).client().subjects()) {
      if (subject.endsWith("-value")) {
        String topic = subject.substring(0, subject.length() - "-value".length());
        if (pattern.matcher(topic).matches()) {
          out.add(topic);
        }
      }
    }
    return out;
  }

  /**
   * The fields of a topic's value schema (a Debezium envelope's {@code after}, or an unwrapped row) whose PostgreSQL
   * source column can hold such a value.
   */
  static List<Unholdable> unholdable(String topic, Schema value) {
    if (value.type() != Schema.Type.STRUCT) {
      return List.of();
    }
    Schema row = value;
    boolean postgres = false;
    Field after = value.field("after");
    Field source = value.field("source");
    if (after != null && source != null && after.schema().type() == Schema.Type.STRUCT) {
      if (!POSTGRES_SOURCE.equals(source.schema().name())) {
        return List.of();
      }
      row = after.schema();
      postgres = true;
    }
    List<Unholdable> out = new ArrayList<>();
    for (Field f : row.fields()) {
      Map<String, String> parameters = f.schema().parameters();
      String type = parameters == null ? null : parameters.get(SOURCE_TYPE);
      if (type == null) {
        continue;
      }
      String upper = type.toUpperCase(Locale.ROOT);
      if ((postgres || POSTGRES_ONLY.contains(upper)) && (FLOATING.contains(upper) || TEMPORAL.contains(upper))) {
        out.add(new Unholdable(topic, f.name(), type));
      }
    }
    return out;
  }

  static String message(Map<String, String> config, List<Unholdable> found) {
    Map<String, List<String>> byTopic = new LinkedHashMap<>();
    int named = 0;
    for (Unholdable u : found) {
      if (named++ < NAMED) {
        byTopic.computeIfAbsent(u.topic(), t -> new ArrayList<>()).add(u.field() + " (" + u.type() + ")");
      }
    }
    List<String> parts = new ArrayList<>();
    byTopic.forEach((topic, fields) -> parts.add(topic + ": " + String.join(", ", fields)));
    String listed = String.join("; ", parts) + (found.size() > NAMED ? "; and " + (found.size() - NAMED) + " more"
        : "");
    boolean floating = found.stream().anyMatch(Unholdable::floating);
    boolean temporal = found.stream().anyMatch(u -> !u.floating());
    List<String> values = new ArrayList<>();
    if (floating) {
      values.add("NaN and ±Infinity (no MariaDB or MySQL numeric type has them; only a numeric into a column the "
          + "sink made, which holds its text, keeps them)");
    }
    if (temporal) {
      values.add("infinity and -infinity (their dates and times hold the years 1 to 9999)");
    }
    return "values MariaDB and MySQL cannot hold: " + (found.size() == 1 ? "a field" : found.size() + " fields")
        + " of this sink's topics come from PostgreSQL columns that can hold " + String.join(", and ", values) + ": "
        + listed + ". A record holding such a value is refused, naming the column, its type and the value: "
        + fate(config) + ". Keep such values out at the source (a CHECK constraint), or exclude the column there "
        + "(column.exclude.list); this check sees the schemas the registry holds now.";
  }

  /** What becomes of a refused record under this config, as the sink decides it. */
  private static String fate(Map<String, String> config) {
    String dlq = config.get("errors.deadletterqueue.topic.name");
    boolean tolerant = "all".equalsIgnoreCase(String.valueOf(config.get("errors.tolerance")).trim());
    boolean fails = "fail".equalsIgnoreCase(String.valueOf(config.get("sluice.sink.refused")).trim());
    if (fails) {
      return "the sink task fails (sluice.sink.refused=fail)";
    }
    if (dlq != null && !dlq.isBlank() && tolerant) {
      return "it goes to the dead letter queue " + dlq.trim() + " and the rest flows";
    }
    return "the sink task fails, having no dead letter queue to send it to (set errors.tolerance=all and "
        + "errors.deadletterqueue.topic.name)";
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("");
  }
}
