package io.sluice.ops.offsets;

import io.sluice.topics.KafkaCluster;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connect.secrets.SecretConfigProvider;
import io.sluice.connect.secrets.SecretStore;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How to reach a connector's source database for the read-only checks: JDBC URL and credentials from the connector's
 * config (a {@code ${sluice:…}} password is looked up in Sluice's secret topic, as the worker does), each overridable.
 * Connections are opened read-only: nothing here writes to the source.
 */
public record SourceDatabase(String kind, String jdbcUrl, String user, String password, String slotName,
    String publicationName) {

  private static final Pattern HOST_PORT = Pattern.compile("^jdbc:[a-z]+://(?:\\[([^\\]]+)]|([^:/?,;]+))(?::(\\d+))?");
  private static final Pattern SLUICE_SECRET = Pattern.compile("\\$\\{" + SecretConfigProvider.NAME + ":([^:}]+):([^}]+)}");

  /** Explicit connection settings that win over the connector config; any may be null. */
  record Overrides(String jdbcUrl, String user, String password) {
    static final Overrides NONE = new Overrides(null, null, null);
  }

  static SourceDatabase from(OffsetFormat format, JsonNode config, Overrides override, KafkaCluster cluster,
      String secretsTopic) {
    String host = text(config, "database.hostname", "127.0.0.1");
    String port = text(config, "database.port", null);
    String url = override.jdbcUrl();
    String kind = format.database();
    if (url == null) {
      url = switch (kind) {
        case "PostgreSQL" -> "jdbc:postgresql://" + host + ":" + (port == null ? "5432" : port) + "/"
            + text(config, "database.dbname", "postgres");
        case "MySQL" -> "jdbc:mysql://" + host + ":" + (port == null ? "3306" : port) + "/";
        default -> "jdbc:sqlserver://" + host + ":" + (port == null ? "1433" : port);
      };
    }
    String user = override.user() != null ? override.user() : text(config, "database.user", null);
    String password = override.password();
    if (password == null) {
      password = resolve(text(config, "database.password", null), cluster, secretsTopic);
    }
    return new SourceDatabase(kind, url, user, password, text(config, "slot.name", "debezium"),
        text(config, "publication.name", "dbz_publication"));
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
    Properties p = new Properties();
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    Connection c = DriverManager.getConnection(jdbcUrl, p);
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
    return kind + " " + jdbcUrl + " as " + user;
  }

  private static String text(JsonNode config, String key, String fallback) {
    JsonNode v = config.get(key);
    return v == null || v.isNull() || v.asText().isBlank() ? fallback : v.asText();
  }
}
