package io.sluice.schema;

import java.util.Objects;

/** A named dependency of a schema on one version of another subject, as in the register body's {@code references}. */
public record SchemaReference(String name, String subject, int version) {
  public SchemaReference {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(subject, "subject");
  }
}
