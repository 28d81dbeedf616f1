package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.JdbcType;
import org.apache.kafka.connect.data.Schema;

/**
 * A value in PostgreSQL's own text form, as Sluice's PostgreSQL source carries the types Debezium's representation
 * would change ({@code io.sluice.source.postgres.PostgresTextConverter}: numeric without a scale, interval, varbit,
 * the geometric types). Into PostgreSQL it is written as the source column's own type, which the schema names, and
 * cast to it on the way in; into another database as the text it is.
 */
public final class PostgresTextType extends PostgresCastString {
  /** The Connect schema name the source gives such a value (the converter's, which this plugin cannot load). */
  static final String NAME = "io.sluice.data.PostgresText";
  /** The schema parameter with the column's PostgreSQL type. */
  static final String TYPE = "io.sluice.postgres.type";

  private PostgresTextType(JdbcType string) {
    super(string);
  }

  /** One dialect's, over its own string type {@code string}. */
  public static PostgresTextType over(JdbcType string) {
    return new PostgresTextType(string);
  }

  @Override
  public String[] getRegistrationKeys() {
    return new String[] {NAME};
  }

  @Override
  public String getDefaultValueBinding(Schema schema, Object value) {
    return null; // the source's default is an expression of the source's; the sink applies none
  }

  /** The source column's type where the sink writes to PostgreSQL, else null. */
  @Override
  String postgresType(Schema schema) {
    if (!postgres() || schema.parameters() == null) {
      return null;
    }
    String type = schema.parameters().get(TYPE);
    // Only what the source's converter writes: a type name with an optional length, nothing to inject.
    return type != null && type.matches("[a-z][a-z0-9_ ]*(\\([0-9]+\\))?(\\[\\])?") ? type : null;
  }
}
