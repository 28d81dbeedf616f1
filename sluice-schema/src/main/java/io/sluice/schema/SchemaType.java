package io.sluice.schema;

import java.util.Locale;
import java.util.Optional;

/** The schema formats a registry knows by name; the wire spells them as in {@code GET /schemas/types}. */
public enum SchemaType {
  AVRO,
  PROTOBUF,
  JSON;

  /** Case-insensitive, as Confluent clients send both {@code AVRO} and {@code avro}. */
  public static Optional<SchemaType> forName(String name) {
    if (name == null) {
      return Optional.of(AVRO);
    }
    try {
      return Optional.of(valueOf(name.trim().toUpperCase(Locale.ROOT)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
