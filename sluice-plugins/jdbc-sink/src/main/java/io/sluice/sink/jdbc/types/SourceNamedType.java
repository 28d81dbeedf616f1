package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.JdbcType;
import java.util.Locale;
import org.apache.kafka.connect.data.Schema;

/**
 * A PostgreSQL string type that Debezium's sink has no entry for, found by the source's column type: in a PostgreSQL
 * table the sink makes, the column gets that type ({@code macaddr8} rather than {@code text}); elsewhere the string
 * as Debezium writes it.
 */
public final class SourceNamedType extends PostgresCastString {

  private final String sourceType;

  private SourceNamedType(JdbcType string, String sourceType) {
    super(string);
    this.sourceType = sourceType;
  }

  /** PostgreSQL's {@code macaddr8}, for one dialect, over its own string type {@code string}. */
  public static SourceNamedType macaddr8(JdbcType string) {
    return new SourceNamedType(string, "MACADDR8");
  }

  @Override
  public String[] getRegistrationKeys() {
    return new String[] {sourceType};
  }

  @Override
  String postgresType(Schema schema) {
    return postgres() ? sourceType.toLowerCase(Locale.ROOT) : null;
  }
}
