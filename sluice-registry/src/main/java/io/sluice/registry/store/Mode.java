package io.sluice.registry.store;

import java.util.Locale;
import java.util.Optional;

/** A subject's (or the registry's) write mode. */
public enum Mode {
  READWRITE,
  READONLY,
  READONLY_OVERRIDE,
  IMPORT;

  public static Optional<Mode> forName(String name) {
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
