package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.AbstractType;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.connect.data.Schema;

/**
 * An array (PostgreSQL's, as Debezium's source carries it) into a database that has no arrays, MariaDB or MySQL: a
 * {@code longtext} holding PostgreSQL's text form of the array ({@code {1,NULL,"a b"}}), which PostgreSQL reads back as
 * the array it was. Debezium's sink has no type for an array there, and failed every record of such a table (a
 * NullPointerException looking up the column's type name), into a text column made beforehand too.
 */
public final class ArrayText extends AbstractType {
  /** One dialect's: each sink's dialect makes its own (see {@code OwnTypes}). */
  public ArrayText() {}

  @Override
  public String[] getRegistrationKeys() {
    return new String[] {"ARRAY"};
  }

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    return "longtext";
  }

  @Override
  public String getDefaultValueBinding(Schema schema, Object value) {
    return null;
  }

  @Override
  public List<ValueBindDescriptor> bind(int index, Schema schema, Object value) {
    return List.of(new ValueBindDescriptor(index, value == null ? null : text(value)));
  }

  /** PostgreSQL's text form of an array (a collection, nested for more dimensions) or of one element. */
  static String text(Object value) {
    StringBuilder out = new StringBuilder();
    append(out, value, true);
    return out.toString();
  }

  private static void append(StringBuilder out, Object value, boolean top) {
    if (value instanceof Collection<?> c) {
      out.append('{');
      boolean first = true;
      for (Object e : c) {
        if (!first) {
          out.append(',');
        }
        first = false;
        append(out, e, false);
      }
      out.append('}');
      return;
    }
    if (value == null) {
      out.append("NULL");
      return;
    }
    String s;
    if (value instanceof BigDecimal d) {
      s = d.toPlainString();
    } else if (value instanceof byte[] b) {
      s = "\\x" + HexFormat.of().formatHex(b);
    } else if (value instanceof ByteBuffer b) {
      byte[] bytes = new byte[b.remaining()];
      b.duplicate().get(bytes);
      s = "\\x" + HexFormat.of().formatHex(bytes);
    } else {
      s = value.toString();
    }
    out.append(quoted(s));
  }

  /** An element as PostgreSQL's array text needs it: in double quotes where it is empty, NULL or holds a delimiter. */
  static String quoted(String s) {
    boolean quote = s.isEmpty() || s.equalsIgnoreCase("NULL");
    for (int i = 0; !quote && i < s.length(); i++) {
      char ch = s.charAt(i);
      quote = ch == '{' || ch == '}' || ch == ',' || ch == '"' || ch == '\\' || Character.isWhitespace(ch);
    }
    if (!quote) {
      return s;
    }
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }
}
