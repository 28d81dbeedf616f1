package io.sluice.registry.schema;

import java.util.Locale;
import java.util.Optional;

/**
 * How strictly a format judges changes that Confluent treats differently by policy. Only JSON Schema distinguishes
 * them: LENIENT also accepts changes to {@code additionalProperties} and properties added to or removed from open and
 * partially open content models, which STRICT (the default) rejects.
 */
public enum CompatibilityPolicy {
  STRICT,
  LENIENT;

  public static Optional<CompatibilityPolicy> forName(String name) {
    if (name == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(valueOf(name.trim().toUpperCase(Locale.ROOT)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
