package io.sluice.app.config;

/**
 * One entry of the table of {@code sluice.yaml} settings ({@link ConfigDefinitions}): a single key, a prefix of raw
 * settings handed on as they are, or a key each component may have of its own.
 */
public sealed interface ConfigDefinition permits ConfigKey, ConfigPrefix, ComponentKeys {

  /** What the entry is for, in a sentence or a few. */
  String doc();

  /** Whether {@code key} (a canonical name, aliases resolved) is a setting of this entry. */
  boolean covers(String key);
}
