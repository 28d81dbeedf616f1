package io.sluice.sink.jdbc;

import java.math.BigDecimal;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A primary key as one comparable string, the same whether its parts come from a change event's key or from the sink
 * table read back over JDBC: an {@code int} column reads as Integer and a {@code numeric} one as BigDecimal, while the
 * event may carry Long or BigDecimal with another scale. A key whose parts do not normalise the same on both sides
 * (timestamps, say) simply never matches, which {@link StaleRows} notices and answers by removing nothing.
 */
final class KeyText {
  private KeyText() {}

  static String of(List<?> parts) {
    return parts.stream().map(KeyText::part).collect(Collectors.joining("\u0000"));
  }

  private static String part(Object v) {
    if (v == null) {
      return "\u0001null";
    }
    if (v instanceof BigDecimal d) {
      return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
    }
    if (v instanceof Number n) {
      return n instanceof Double || n instanceof Float
          ? (Double.isFinite(n.doubleValue()) ? part(BigDecimal.valueOf(n.doubleValue())) : n.toString())
          : new BigDecimal(n.toString()).toPlainString();
    }
    if (v instanceof byte[] b) {
      return HexFormat.of().formatHex(b);
    }
    return v.toString();
  }
}
