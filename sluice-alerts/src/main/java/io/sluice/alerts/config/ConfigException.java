package io.sluice.alerts.config;

import java.util.List;

/** A configuration that cannot be used; {@link #errors()} lists every problem found, in file order. */
public final class ConfigException extends Exception {
  private final List<String> errors;

  public ConfigException(List<String> errors) {
    super(String.join("; ", errors));
    this.errors = List.copyOf(errors);
  }

  public List<String> errors() {
    return errors;
  }
}
