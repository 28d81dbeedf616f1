package io.sluice.schema;

import java.util.Locale;
import java.util.Optional;

/** The seven compatibility modes; which directions each checks and against how many earlier versions. */
public enum CompatibilityLevel {
  NONE(false, false, false),
  BACKWARD(true, false, false),
  BACKWARD_TRANSITIVE(true, false, true),
  FORWARD(false, true, false),
  FORWARD_TRANSITIVE(false, true, true),
  FULL(true, true, false),
  FULL_TRANSITIVE(true, true, true);

  /** The new schema must read data written with the old one. */
  public final boolean newReadsOld;
  /** The old schema must read data written with the new one. */
  public final boolean oldReadsNew;
  /** Every earlier live version, not only the latest. */
  public final boolean transitive;

  CompatibilityLevel(boolean newReadsOld, boolean oldReadsNew, boolean transitive) {
    this.newReadsOld = newReadsOld;
    this.oldReadsNew = oldReadsNew;
    this.transitive = transitive;
  }

  public static Optional<CompatibilityLevel> forName(String name) {
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
