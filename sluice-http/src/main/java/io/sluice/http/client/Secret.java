package io.sluice.alerts.config;

import com.fasterxml.jackson.annotation.JsonValue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A credential from the configuration: a webhook URL, an integration key, a password. It comes inline, from
 * {@code ${ENV_VAR}} (a Sluice extension for inline values) or from a {@code *_file} read at send time, as
 * Alertmanager reads its files, so a rotated secret needs no reload. Printing or serialising it never shows it.
 */
public sealed interface Secret {
  String MASK = "<secret>";

  /** The secret value; call only where it is sent, never to log. */
  String reveal();

  @JsonValue
  default String masked() {
    return MASK;
  }

  record Inline(String value) implements Secret {
    @Override
    public String reveal() {
      return value;
    }

    @Override
    public String toString() {
      return MASK;
    }
  }

  record FromFile(Path path) implements Secret {
    @Override
    public String reveal() {
      try {
        return Files.readString(path, StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read secret file " + path, e);
      }
    }

    @Override
    public String toString() {
      return MASK;
    }
  }

  /** {@code ${NAME}} as the whole value takes the value from the environment; anything else is literal. */
  static Secret inline(String raw, Map<String, String> env) {
    if (raw != null && raw.startsWith("${") && raw.endsWith("}") && raw.length() > 3) {
      String name = raw.substring(2, raw.length() - 1);
      String v = env.get(name);
      if (v == null) {
        throw new IllegalArgumentException("environment variable " + name + " is not set");
      }
      return new Inline(v);
    }
    return new Inline(raw);
  }
}
