package io.sluice.serde.connect;

/**
 * Avro names from Connect names. Avro allows {@code [A-Za-z_][A-Za-z0-9_]*} per dotted part, Connect anything: a
 * topic prefix such as {@code demo-shop} would make Debezium's {@code demo-shop.public.orders.Value} unparseable.
 * Each offending character becomes {@code _} (Debezium's own {@code schema.name.adjustment.mode=avro} rule); the
 * original name still travels in {@code connect.name}, so the sink sees what the source wrote.
 */
final class AvroNames {
  private AvroNames() {}

  static String adjust(String name) {
    StringBuilder out = new StringBuilder(name.length() + 1);
    boolean partStart = true;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '.') {
        if (partStart) {
          out.append('_');
        }
        out.append('.');
        partStart = true;
        continue;
      }
      boolean letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
      boolean digit = c >= '0' && c <= '9';
      if (partStart && digit) {
        out.append('_');
      }
      out.append(letter || digit ? c : '_');
      partStart = false;
    }
    if (partStart) {
      out.append('_');
    }
    return out.toString();
  }
}
