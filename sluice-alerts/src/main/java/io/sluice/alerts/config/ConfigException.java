package io.sluice.alerts.config;

import java.util.List;

/**
 * A configuration that cannot be used; {@link #errors()} lists every problem found, in file order. Unchecked, as any
 * refused argument, so that whoever starts the router can report it beside the other components' refusals without
 * knowing this type.
 */
public final class ConfigException extends IllegalArgumentException {
  private final List<String> errors;

  public ConfigException(List<String> errors) {
    super(String.join("; ", errors));
    this.errors = List.copyOf(errors);
  }

  public List<String> errors() {
    return errors;
  }
}
