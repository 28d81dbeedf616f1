package io.sluice.ops.offsets;

import io.sluice.topics.KafkaCluster;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connect.secrets.SecretConfigProvider;
import io.sluice.connect.secrets.SecretStore;
import io.sluice.source.Engine;
import io.sluice.source.SourceConnection;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How to reach a connector's source database for the read-only checks: the connection its config describes
 * ({@link SourceConnection}: URL, credentials, TLS; a {@code ${sluice:…}} reference is looked up in Sluice's secret
 * topic, as the worker does), with the URL, user and password each overridable. Connections are opened read-only:
 * nothing here writes to the source.
 */
public record SourceDatabase(Engine engine, String jdbcUrl, String user, String password, Map<String, String> tls,
    String slotName, String publicationName) {

  private static final Pattern HOST_PORT = Pattern.compile("^jdbc:[a-z]+://(?:\\[([^\\]]+)]|([^:/?,;]+))(?::(\\d+))?");
  private static final Pattern SLUICE_SECRET = Pattern.compile("\\$\\{" + SecretConfigProvider.NAME + ":([^:}]+):([^}]+)}");

  public SourceDatabase {
    tls = tls == null ? Map.of() : Map.copyOf(tls);
  }

  /** Explicit connection settings that win over the connector config; any may be null. */
  record Overrides(String jdbcUrl, String user, String password) {
    static final Overrides NONE = new Overrides(null, null, null);
  }

  static SourceDatabase from(OffsetFormat format, JsonNode config, Overrides override, KafkaCluster cluster,
      String secretsTopic) {
    Map<String, String> c = new HashMap<>();
    config.fields().forEachRemaining(e -> {
      if (!e.getValue().isNull()) {
        c.put(e.getKey(), e.getValue().asText());
      }
    });
    // What the operator gives is not read (nor resolved) from the config.
    if (override.user() != null) {
      c.remove(SourceConnection.USER);
    }
    if (override.password() != null) {
      c.remove(SourceConnection.PASSWORD);
    }
    SourceConnection.Secrets secrets = secrets(cluster, secretsTopic);
    String url;
    String user;
    String password;
    Map<String, String> tls;
    if (override.jdbcUrl() == null) {
      SourceConnection source = SourceConnection.of(format.engine(), c, secrets);
      url = source.jdbcUrl();
      user = source.user();
      password = source.password();
      tls = source.tls();
    } else {
      // The operator's URL says where and how (its own TLS parameters): only the credentials come from the config.
      url = override.jdbcUrl();
      user = text(config, SourceConnection.USER, null);
      String p = c.get(SourceConnection.PASSWORD);
      password = p == null || p.isEmpty() ? null : secrets.resolve(SourceConnection.PASSWORD, p);
      tls = Map.of();
    }
    return new SourceDatabase(format.engine(), url, override.user() != null ? override.user() : user,
        override.password() != null ? override.password() : password, tls, text(config, "slot.name", "debezium"),
        text(config, "publication.name", "dbz_publication"));
  }

  /**
   * How the CLI's tools resolve the references in a source config: Sluice's own from its secret topic
   * ({@link #resolve(String, KafkaCluster, String)}); any other provider's is refused, saying so.
   */
  public static SourceConnection.Secrets secrets(KafkaCluster cluster, String secretsTopic) {
    return (key, value) -> SourceConnection.PASSWORD.equals(key) ? resolve(value, cluster, secretsTopic)
        : resolve(value, cluster, secretsTopic, "the source's " + key, "put the value in the connector's config");
  }

  /** A password as the worker would see it; a config-provider reference other than Sluice's cannot be resolved here. */
  public static String resolve(String value, KafkaCluster cluster, String secretsTopic) {
    return resolve(value, cluster, secretsTopic, "the source password", "pass --source-password");
  }

  /**
   * As {@link #resolve(String, KafkaCluster, String)}, for any setting: {@code what} names it in an error, {@code
   * remedy} says what the caller can do instead (a flag of the CLI, a field of the console).
   */
  public static String resolve(String value, KafkaCluster cluster, String secretsTopic, String what, String remedy) {
    if (value == null || !value.startsWith("${")) {
      return value;
    }
    Matcher m = SLUICE_SECRET.matcher(value);
    if (!m.matches()) {
      throw new IllegalArgumentException(what + " is a config-provider reference (" + value + ") that"
          + " only the worker can resolve: " + remedy);
    }
    String connector = URLDecoder.decode(m.group(1), StandardCharsets.UTF_8);
    return SecretStore.of(cluster, secretsTopic).get(connector, m.group(2)).orElseThrow(() ->
        new IllegalArgumentException("secret " + value + " is not in topic " + secretsTopic + ": " + remedy));
  }

  Connection connect() throws SQLException {
    Connection c = DriverManager.getConnection(jdbcUrl, SourceConnection.driverProperties(user, password, tls));
    c.setReadOnly(true);
    return c;
  }

  /** Host and port of the JDBC URL ({@code jdbc:mysql://host:port/…}), for protocols other than JDBC. */
  InetSocketAddress address(int defaultPort) {
    Matcher m = HOST_PORT.matcher(jdbcUrl);
    if (!m.find()) {
      throw new IllegalArgumentException("cannot tell the host of " + jdbcUrl);
    }
    String host = m.group(1) != null ? m.group(1) : m.group(2);
    return InetSocketAddress.createUnresolved(host, m.group(3) == null ? defaultPort : Integer.parseInt(m.group(3)));
  }

  @Override
  public String toString() {
    return engine + " " + jdbcUrl + " as " + user;
  }

  private static String text(JsonNode config, String key, String fallback) {
    JsonNode v = config.get(key);
    return v == null || v.isNull() || v.asText().isBlank() ? fallback : v.asText();
  }
}
