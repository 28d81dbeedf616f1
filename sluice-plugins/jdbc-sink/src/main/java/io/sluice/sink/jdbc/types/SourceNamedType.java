package io.sluice.sink.jdbc.types;

import java.util.Locale;
import org.apache.kafka.connect.data.Schema;

/**
 * A PostgreSQL string type that Debezium's sink has no entry for, found by the source's column type: in a PostgreSQL
 * table the sink makes, the column gets that type ({@code macaddr8} rather than {@code text}); elsewhere the string
 * as Debezium writes it.
 */
public final class SourceNamedType extends PostgresCastString {
  public static final SourceNamedType MACADDR8 = new SourceNamedType("MACADDR8");

  private final String sourceType;

  private SourceNamedType(String sourceType) {
    this.sourceType = sourceType;
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
