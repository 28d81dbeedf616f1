package io.sluice.serde;

import io.sluice.client.ClientOptions;
import io.sluice.client.Secret;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.serde.subject.SubjectNameStrategy;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings every Sluice serializer and deserializer reads, under Confluent's keys so existing client configs
 * work unchanged: {@code schema.registry.url}, {@code auto.register.schemas} (default true),
 * {@code use.latest.version} (default false), {@code key.subject.name.strategy}, {@code value.subject.name.strategy}
 * (default TopicNameStrategy); and how to reach a secured registry, as Confluent's clients are told:
 * {@code basic.auth.credentials.source} ({@code USER_INFO}, or {@code URL} for credentials in the URL),
 * {@code basic.auth.user.info} ({@code user:password}) and {@code schema.registry.ssl.truststore.location} (PEM, with
 * {@code schema.registry.ssl.truststore.type} PEM).
 */
public record SerdeConfig(String registryUrl, boolean autoRegister, boolean useLatestVersion,
    SubjectNameStrategy strategy, boolean isKey, ClientOptions options) {
  public static final String REGISTRY_URL = "schema.registry.url";
  public static final String AUTO_REGISTER = "auto.register.schemas";
  public static final String USE_LATEST_VERSION = "use.latest.version";
  public static final String KEY_STRATEGY = "key.subject.name.strategy";
  public static final String VALUE_STRATEGY = "value.subject.name.strategy";
  public static final String CREDENTIALS_SOURCE = "basic.auth.credentials.source";
  public static final String USER_INFO = "basic.auth.user.info";
  public static final String TRUSTSTORE = "schema.registry.ssl.truststore.location";
  public static final String TRUSTSTORE_TYPE = "schema.registry.ssl.truststore.type";
  /**
   * The one mapper of the serdes: thread-safe once configured, and costly enough to share. Numbers are exact both
   * ways: one with a fraction is read as a BigDecimal (as a double, a {@code numeric(20,6)} kept some 16 digits) and a
   * BigDecimal is written with the digits and scale it has.
   */
  public static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper()
      .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .setNodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));

  public static SerdeConfig of(Map<String, ?> configs, boolean isKey) {
    Object url = configs.get(REGISTRY_URL);
    if (url == null || url.toString().isBlank()) {
      throw new ConfigException("Missing required configuration \"" + REGISTRY_URL + "\" which has no default value.");
    }
    // Several URLs may be listed; the first is used (the registry's nodes agree through their Kafka log).
    String first = url.toString().split(",")[0].trim();
    Object strategy = configs.get(isKey ? KEY_STRATEGY : VALUE_STRATEGY);
    ClientOptions options = ClientOptions.defaults();
    String source = text(configs, CREDENTIALS_SOURCE, "USER_INFO").toUpperCase(java.util.Locale.ROOT);
    String userInfo = switch (source) {
      case "USER_INFO" -> text(configs, USER_INFO, null);
      case "URL" -> {
        java.net.URI u = java.net.URI.create(first);
        if (u.getRawUserInfo() != null) {
          first = first.replace(u.getRawUserInfo() + "@", "");
        }
        yield u.getUserInfo();
      }
      default -> throw new ConfigException(CREDENTIALS_SOURCE + " must be USER_INFO or URL, not " + source);
    };
    if (userInfo != null && !userInfo.isEmpty()) {
      int colon = userInfo.indexOf(':');
      if (colon < 0) {
        throw new ConfigException(USER_INFO + " must be user:password");
      }
      String password = userInfo.substring(colon + 1);
      options = options.withBasicAuth(userInfo.substring(0, colon), new Secret.Inline(password));
    }
    String truststore = text(configs, TRUSTSTORE, null);
    if (truststore != null && !truststore.isBlank()) {
      String type = text(configs, TRUSTSTORE_TYPE, "PEM");
      if (!type.equalsIgnoreCase("PEM")) {
        throw new ConfigException(TRUSTSTORE_TYPE + " " + type + " is not supported; give the CA certificates as PEM");
      }
      options = options.withCaFile(java.nio.file.Path.of(truststore));
    }
    try {
      return new SerdeConfig(first, flag(configs, AUTO_REGISTER, true), flag(configs, USE_LATEST_VERSION, false),
          SubjectNameStrategy.named(strategy == null ? null : strategy instanceof Class<?> c ? c.getName()
              : strategy.toString()), isKey, options);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  private static String text(Map<String, ?> configs, String key, String dflt) {
    Object v = configs.get(key);
    if (v instanceof org.apache.kafka.common.config.types.Password p) {
      return p.value();
    }
    return v == null ? dflt : v.toString().trim();
  }

  private static boolean flag(Map<String, ?> configs, String key, boolean dflt) {
    Object v = configs.get(key);
    return v == null ? dflt : Boolean.parseBoolean(v.toString().trim());
  }

  /** Never prints the credentials. */
  @Override
  public String toString() {
    return "SerdeConfig[registryUrl=" + registryUrl + ", autoRegister=" + autoRegister + ", useLatestVersion="
        + useLatestVersion + ", strategy=" + strategy + ", isKey=" + isKey + ", options=" + options + "]";
  }

  public SchemaRegistryClient client() {
    return new SchemaRegistryClient(registryUrl, options);
  }
}
