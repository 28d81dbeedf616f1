package io.sluice.ops.dlq;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which dead-letter records an operation takes: {@code exception=…}, {@code stage=…}, {@code connector=…},
 * {@code topic=…} (the original topic); all given conditions must hold.
 *
 * <p>An exception matches by full or simple class name ({@code DataException} or
 * {@code org.apache.kafka.connect.errors.DataException}); a stage case-insensitively; connector and topic exactly.
 */
public record RecordFilter(List<Condition> conditions) {
  public static final RecordFilter ALL = new RecordFilter(List.of());

  /** One {@code field=value} condition. */
  public record Condition(Field field, String value) {}

  /** The fields a condition can test. */
  public enum Field { EXCEPTION, STAGE, CONNECTOR, TOPIC }

  public RecordFilter {
    conditions = List.copyOf(conditions);
  }

  /**
   * Parses {@code field=value} expressions; several may be given in one string separated by {@code |} or
   * {@code ,}.
   *
   * @throws IllegalArgumentException naming the bad expression and the allowed fields
   */
  public static RecordFilter parse(List<String> expressions) {
    List<Condition> out = new ArrayList<>();
    for (String expression : expressions) {
      for (String part : expression.split("[|,]")) {
        if (part.isBlank()) {
          continue;
        }
        int eq = part.indexOf('=');
        if (eq <= 0 || eq == part.length() - 1) {
          throw new IllegalArgumentException("bad filter '" + part + "': expected FIELD=VALUE with FIELD one of "
              + "exception, stage, connector, topic");
        }
        String name = part.substring(0, eq).trim().toUpperCase(Locale.ROOT);
        Field field;
        try {
          field = Field.valueOf(name);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("bad filter field '" + part.substring(0, eq).trim()
              + "': use exception, stage, connector or topic");
        }
        out.add(new Condition(field, part.substring(eq + 1).trim()));
      }
    }
    return new RecordFilter(out);
  }

  /**
   * The conditions in one order-independent text ({@code connector=x,exception=y}), so the same filter written in
   * another order or spelling of the field names names the same replay group.
   */
  public String canonical() {
    return conditions.stream().map(c -> c.field().name().toLowerCase(Locale.ROOT) + "=" + c.value()).sorted()
        .collect(java.util.stream.Collectors.joining(","));
  }

  public boolean matches(DlqRecord record) {
    ErrorContext e = record.error();
    for (Condition c : conditions) {
      boolean ok = switch (c.field()) {
        case EXCEPTION -> c.value().equals(e.exceptionClass()) || c.value().equals(e.exceptionSimpleName());
        case STAGE -> c.value().equalsIgnoreCase(e.stage());
        case CONNECTOR -> c.value().equals(e.connector());
        case TOPIC -> c.value().equals(e.topic());
      };
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
