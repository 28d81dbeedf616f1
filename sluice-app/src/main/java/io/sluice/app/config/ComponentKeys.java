package io.sluice.app.config;

import java.util.List;

/**
 * A key each of {@code components} may have of its own, {@code <component>.<base key>}, in place of the base key for
 * that component alone: {@code registry.web.config.file} over {@code web.config.file}.
 */
public record ComponentKeys<T>(ConfigKey<T> base, List<String> components, String doc) implements ConfigDefinition {

  public ComponentKeys {
    components = List.copyOf(components);
  }

  /** The key of {@code component}. */
  public String name(String component) {
    if (!components.contains(component)) {
      throw new IllegalArgumentException(component + " is none of " + components);
    }
    return component + "." + base.name();
  }

  @Override
  public boolean covers(String key) {
    int dot = key.indexOf('.');
    return dot > 0 && components.contains(key.substring(0, dot)) && key.substring(dot + 1).equals(base.name());
  }

  /** The value {@code raw} of {@code key}, checked as the base key's. */
  public T parse(String key, String raw) {
    return ConfigKey.read(key, base.type(), raw);
  }
}
