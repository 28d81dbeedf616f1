package io.sluice.schema;

import java.util.List;

/**
 * A schema its format's parser accepted. Implementations are immutable, so the registry can share the parsed forms it
 * keeps for compatibility checks between threads.
 */
public interface ParsedSchema {
  SchemaType type();

  /**
   * The form the registry stores, returns and compares: two texts with the same canonical string (and references)
   * are one schema with one id.
   */
  String canonical();

  List<SchemaReference> references();

  /** The form {@code ?normalize=true} registers and looks up: equivalent schemas written differently become equal. */
  ParsedSchema normalize();
}
