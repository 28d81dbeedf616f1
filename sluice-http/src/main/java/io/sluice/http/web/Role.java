package io.sluice.http.web;

import java.util.Locale;

/**
 * What a user may do, each role including the ones before it: {@code read} every GET and a scrape of
 * {@code /metrics}; {@code operate} also pause, resume, restart, silences, DLQ replay, offset surgery; {@code admin}
 * everything, creating and deleting connectors, schemas, subjects and configs included.
 */
public enum Role {
  READ, OPERATE, ADMIN;

  public boolean allows(Role needed) {
    return compareTo(needed) >= 0;
  }

  public static Role parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("unknown role '" + value + "' (read, operate, admin)");
    }
  }

  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
