package io.sluice.registry.store;

import io.sluice.schema.CompatibilityLevel;
import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import java.util.List;

/**
 * One change to the registry, as written to the {@code _schemas} log. The state is nothing but these events applied in
 * log order, so every node that reads the log holds the same state at the same offset.
 */
public sealed interface LogEvent {
  /** A new version of a subject; the schema text is its canonical form. */
  record Registered(
      String subject, int version, int id, SchemaType type, String schema, List<SchemaReference> references)
      implements LogEvent {
    public Registered {
      references = List.copyOf(references);
    }
  }

  /** Soft ({@code permanent=false}) or hard delete of one version. */
  record VersionDeleted(String subject, int version, boolean permanent) implements LogEvent {}

  /** Soft or hard delete of every version of a subject; a hard delete also forgets its config and mode. */
  record SubjectDeleted(String subject, boolean permanent) implements LogEvent {}

  /**
   * Compatibility level and policy of a subject, or the global ones when {@code subject} is null; a null value removes
   * that setting.
   */
  record ConfigSet(String subject, CompatibilityLevel level, CompatibilityPolicy policy) implements LogEvent {}

  /** Mode of a subject, or the global one when {@code subject} is null; a null mode removes it. */
  record ModeSet(String subject, Mode mode) implements LogEvent {}
}
