package io.sluice.client;

import com.fasterxml.jackson.annotation.JsonValue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A credential from a configuration or a command: a password, a token, a webhook URL. It comes inline, from
 * {@code ${ENV_VAR}} (where the configuration allows it, see {@link #inline}), from a {@code *_file} read each time it
 * is used, as Prometheus and Alertmanager read their files, so a rotated secret needs no reload, or from a command's
 * own source (its environment) read when a request needs it. Printing or serialising it never
 * shows it.
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

  /** A file's content, white space around it dropped, read at each use. */
  record FromFile(Path path) implements Secret {
    @Override
    public String reveal() {
      try {
        return Files.readString(path, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read secret file " + path, e);
      }
    }

    @Override
    public String toString() {
      return MASK;
    }
  }

  /**
   * A value worked out when a request needs it (a command's password from its environment), so a command that sends
   * nothing never asks for it.
   */
  record Supplied(Supplier<String> value) implements Secret {
    @Override
    public String reveal() {
      return value.get();
    }

    @Override
    public String toString() {
      return MASK;
    }
  }

  /**
   * An inline value. With {@code env} (the alert router's configuration, a Sluice extension), {@code ${NAME}} as the
   * whole value takes the value from the environment; without it, or for anything else, the value is literal.
   */
  static Secret inline(String raw, Map<String, String> env) {
    if (env != null && raw != null && raw.startsWith("${") && raw.endsWith("}") && raw.length() > 3) {
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
