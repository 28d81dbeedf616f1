package io.sluice.schema;

import java.util.Arrays;
import java.util.Optional;

/**
 * How strictly a format judges changes that Confluent treats differently by policy. Only JSON Schema distinguishes
 * them: LENIENT also accepts changes to {@code additionalProperties} and properties added to or removed from open and
 * partially open content models, which STRICT (the default) rejects.
 */
public enum CompatibilityPolicy {
  STRICT,
  LENIENT;

  /** Case-insensitive; empty for null or an unknown name. */
  public static Optional<CompatibilityPolicy> forName(String name) {
    return name == null ? Optional.empty()
        : Arrays.stream(values()).filter(p -> p.name().equalsIgnoreCase(name.trim())).findFirst();
  }
}
