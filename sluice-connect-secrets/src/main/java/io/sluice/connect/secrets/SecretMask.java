package io.sluice.connect.secrets;

import java.util.Locale;

/**
 * Which connector config keys hold a secret: the one rule behind both what a Sluice worker moves into its secret store
 * (leaving a {@code ${sluice:connector:key}} reference) and what the CLI and the console never show. A key is a secret
 * when, in any case, it ends in {@code password} ({@code connection.password}, {@code ssl.keystore.password}), ends in
 * {@code token}, names key material ({@code api.key}, {@code ssl.keystore.key}, {@code private.key}), contains {@code secret} or
 * {@code credentials}, or carries a password inside it ({@code sasl.jaas.config}, a registry client's
 * {@code basic.auth.user.info}). Where credentials come from ({@code basic.auth.credentials.source}) is no secret.
 * A config-provider reference ({@code ${provider:path:key}}) is not a secret either and is shown as it is.
 */
public final class SecretMask {
  public static final String MASK = "********";

  /**
   * Key material by name ({@code ssl.keystore.key}, {@code api.key}, {@code access.key}, {@code private.key}), not any
   * key ending in {@code .key}: the outbox router's {@code table.field.event.key} names a column, and a worker that
   * moved it into its secret store would show users a reference where they wrote a column name.
   */
  private static final java.util.regex.Pattern KEY_MATERIAL =
      java.util.regex.Pattern.compile("(keystore|api|access|private|client|secret)[._-]?key$");

  private SecretMask() {}

  public static boolean isSecretKey(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    if (k.endsWith("credentials.source")) {
      return false;
    }
    return k.endsWith("password") || k.endsWith("token") || KEY_MATERIAL.matcher(k).find() || k.contains("secret")
        || k.contains("credentials") || k.endsWith("sasl.jaas.config") || k.endsWith("basic.auth.user.info");
  }

  public static boolean isReference(String value) {
    return value != null && value.startsWith("${") && value.endsWith("}");
  }

  /** The value as it may be shown. */
  public static String shown(String key, String value) {
    return value != null && isSecretKey(key) && !isReference(value) ? MASK : value;
  }
}
