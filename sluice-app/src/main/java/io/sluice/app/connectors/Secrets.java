package io.sluice.app.connectors;

import java.util.Locale;

/**
 * Which config values the CLI never prints. Sluice's own worker already keeps passwords out of configs (they read
 * {@code ${sluice:connector:key}}); against any other Connect cluster the CLI masks what looks like a credential.
 * A config-provider reference ({@code ${provider:path:key}}) is not a secret and is shown as it is.
 */
final class Secrets {
  static final String MASK = "********";

  private Secrets() {}

  static boolean isSecretKey(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    return k.endsWith("password") || k.contains("secret") || k.endsWith("sasl.jaas.config") || k.endsWith(".key")
        || k.contains("credentials") || k.endsWith("token") || k.endsWith("api.key");
  }

  static boolean isReference(String value) {
    return value != null && value.startsWith("${") && value.endsWith("}");
  }

  /** The value as it may be printed. */
  static String shown(String key, String value) {
    return value != null && isSecretKey(key) && !isReference(value) ? MASK : value;
  }
}
