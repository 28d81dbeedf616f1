package io.sluice.app.config;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A key each of {@code components} may have of its own, {@code <component>.<base key>}, in place of the base key for
 * that component alone: {@code registry.web.config.file} over {@code web.config.file}.
 *
 * @param oldComponents older names of components, by older name: {@code <older name>.<base key>} still means the
 *     component's key
 */
public record ComponentKeys<T>(ConfigKey<T> base, List<String> components, String doc,
    Map<String, String> oldComponents) implements ConfigDefinition {

  public ComponentKeys {
    components = List.copyOf(components);
    oldComponents = Map.copyOf(oldComponents);
  }

  public ComponentKeys(ConfigKey<T> base, List<String> components, String doc) {
    this(base, components, doc, Map.of());
  }

  /** {@code key} under a component's older name, as the component's key now; empty for any other key. */
  public Optional<String> renamed(String key) {
    int dot = key.indexOf('.');
    if (dot <= 0 || !oldComponents.containsKey(key.substring(0, dot)) || !key.substring(dot + 1).equals(base.name())) {
      return Optional.empty();
    }
    return Optional.of(name(oldComponents.get(key.substring(0, dot))));
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
