package io.sluice.connect.config;

import java.util.Locale;

/**
 * Which config values are never shown, by the CLI or the console. Sluice's own worker already keeps passwords out of
 * configs (they read {@code ${sluice:connector:key}}); against any other Connect cluster what looks like a credential
 * is masked. A config-provider reference ({@code ${provider:path:key}}) is not a secret and is shown as it is.
 */
public final class SecretMask {
  public static final String MASK = "********";

  private SecretMask() {}

  public static boolean isSecretKey(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    return k.endsWith("password") || k.contains("secret") || k.endsWith("sasl.jaas.config") || k.endsWith(".key")
        || k.contains("credentials") || k.endsWith("token") || k.endsWith("api.key");
  }

  public static boolean isReference(String value) {
    return value != null && value.startsWith("${") && value.endsWith("}");
  }

  /** The value as it may be shown. */
  public static String shown(String key, String value) {
    return value != null && isSecretKey(key) && !isReference(value) ? MASK : value;
  }
}
