package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.connect.data.Schema;

/**
 * Debezium's PostgreSQL {@code RangeType} and {@code TsvectorType}, binding what they bind without a regular
 * expression. Each binds its string with every one of a quote character removed ({@code "} of a range, {@code '} of a
 * tsvector) by {@code String.replaceAll}, which compiles its pattern again for every value: a tenth of the COPY path's
 * time on a table with ranges and a tsvector. {@code String.replace} of the same character gives the same string.
 */
public final class QuoteRemovingType extends DelegatingType {
  private static final String RANGE = "io.debezium.connector.jdbc.dialect.postgres.RangeType";
  private static final String TSVECTOR = "io.debezium.connector.jdbc.dialect.postgres.TsvectorType";

  private final String quote;

  private QuoteRemovingType(JdbcType debezium, String quote) {
    super(debezium);
    this.quote = quote;
  }

  /** Stands in for {@code debezium} where it is one of the two types; empty for any other. */
  public static Optional<QuoteRemovingType> over(JdbcType debezium) {
    return switch (debezium.getClass().getName()) {
      case RANGE -> Optional.of(new QuoteRemovingType(debezium, "\""));
      case TSVECTOR -> Optional.of(new QuoteRemovingType(debezium, "'"));
      default -> Optional.empty();
    };
  }

  @Override
  public List<ValueBindDescriptor> bind(int index, Schema schema, Object value) {
    // Anything but a string is Debezium's type's to bind (or to refuse), as before.
    return value instanceof String s ? List.of(new ValueBindDescriptor(index, s.replace(quote, "")))
        : super.bind(index, schema, value);
  }
}
