package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.sink.column.ColumnDescriptor;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.util.List;
import org.apache.kafka.connect.data.Schema;

/**
 * Debezium's times of day as Debezium's sink writes them, except the end of the day: PostgreSQL's and MySQL's
 * {@code time} hold {@code 24:00:00}, which Debezium's sources send as a whole day of milli-, micro- or nanoseconds and
 * its sink turns into a {@code LocalTime}, which cannot hold it ("Invalid value for NanoOfDay"), failing the record.
 * That value is written as the text {@code 24:00:00}, which both databases read as their own.
 *
 * <p>Into MariaDB and MySQL also every other value outside a day: their {@code time} is a duration of -838:59:59 to
 * 838:59:59, which Debezium's binlog sources send as such, negative or over 24 hours, and which a {@code LocalTime}
 * cannot hold either; it is written as the text {@code [-]H:MM:SS.ffffff} those databases read. Into a PostgreSQL
 * {@code interval} column (the nearest type of a MariaDB or MySQL {@code time}) likewise, cast to an interval; into a
 * PostgreSQL {@code time} such a value is refused, as the column cannot hold it; a PostgreSQL table the sink makes
 * therefore has an {@code interval} column for a MariaDB or MySQL {@code time}.
 *
 * <p>A time whose source column declared no fractional digits is made with none, in either database, not with
 * Debezium's six.
 */
public final class FullDayTimeType extends DelegatingType {
  private final long day;

  private FullDayTimeType(JdbcType debezium, long day) {
    super(debezium);
    this.day = day;
  }

  /** Milliseconds of the day, over one dialect's own {@code TimeType}. */
  public static FullDayTimeType millis(JdbcType time) {
    return new FullDayTimeType(time, 86_400_000L);
  }

  /** Microseconds of the day, over one dialect's own {@code MicroTimeType}. */
  public static FullDayTimeType micros(JdbcType microTime) {
    return new FullDayTimeType(microTime, 86_400_000_000L);
  }

  /** Nanoseconds of the day, over one dialect's own {@code NanoTimeType}. */
  public static FullDayTimeType nanos(JdbcType nanoTime) {
    return new FullDayTimeType(nanoTime, 86_400_000_000_000L);
  }

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    if (postgres() && SourceColumn.binlogTime(schema)) {
      return "interval";
    }
    java.util.OptionalInt declared = SourceColumn.fractionDigits(schema);
    if (declared.isPresent() && declared.getAsInt() == 0 && (binlog() || postgres())) {
      // Debezium's sink reads a declared 0 as none and makes the column with six digits.
      return postgres() ? "time(0)" : "time";
    }
    return super.getTypeName(schema, isKey);
  }

  @Override
  public String getQueryBinding(ColumnDescriptor column, Schema schema, Object value) {
    // Into PostgreSQL the text must be cast (bound as varchar it is refused), and so may every other value of the
    // column: a statement's binding is made once for all its rows.
    if (postgres()) {
      return column != null && "interval".equalsIgnoreCase(column.getTypeName()) ? "cast(? as interval)"
          : "cast(? as time)";
    }
    return super.getQueryBinding(column, schema, value);
  }

  @Override
  public List<ValueBindDescriptor> bind(int index, Schema schema, Object value) {
    if (value instanceof Number n && n.longValue() == day) {
      return List.of(new ValueBindDescriptor(index, "24:00:00"));
    }
    // Into PostgreSQL every value as its text, cast by the binding: an interval column cannot take the timestamp
    // Debezium's type binds.
    if (value instanceof Number n && (n.longValue() < 0 || n.longValue() > day || postgres())) {
      return List.of(new ValueBindDescriptor(index, duration(n.longValue(), day / 86_400L)));
    }
    return super.bind(index, schema, value);
  }

  /**
   * {@code value} units of which {@code perSecond} make a second, as {@code [-]H:MM:SS[.fraction]}, the fraction with
   * as many digits as {@code perSecond} has zeros. Written by hand: {@code String.format} cost a tenth of the sink
   * task's time on a table with a time column, as every value is bound through here on the COPY path too.
   */
  static String duration(long value, long perSecond) {
    long abs = Math.abs(value);
    long seconds = abs / perSecond;
    long fraction = abs % perSecond;
    StringBuilder out = new StringBuilder(24);
    if (value < 0) {
      out.append('-');
    }
    out.append(seconds / 3600);
    twoDigits(out.append(':'), seconds / 60 % 60);
    twoDigits(out.append(':'), seconds % 60);
    if (fraction != 0) {
      out.append('.');
      String digits = Long.toString(fraction);
      for (long unit = perSecond / 10; unit > 1 && fraction < unit; unit /= 10) {
        out.append('0');
      }
      out.append(digits);
    }
    return out.toString();
  }

  private static void twoDigits(StringBuilder out, long n) {
    out.append((char) ('0' + n / 10)).append((char) ('0' + n % 10));
  }
}
