package io.sluice.source;

import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * How to reach a Debezium source's database, read from its connector config as the connector reads it: {@code
 * database.hostname}, {@code database.port} (the engine's default when absent), {@code database.dbname} (for an engine
 * whose connection names a database), {@code database.user}, {@code database.password} and the TLS settings the
 * engine's driver takes. A blank value counts as absent; values are trimmed (the password is taken as it is).
 *
 * <p>The host has no default: Debezium requires {@code database.hostname}, so every connector that runs names one, and
 * a default would only ever point a tool at a database the connector does not read. The same holds for
 * {@code database.dbname} of a PostgreSQL source.
 *
 * <p>A value may be a config-provider reference ({@code ${sluice:…}}): each value is handed to the caller's
 * {@link Secrets}, which knows where the references it can resolve are kept.
 *
 * @param tls driver property to value, from Debezium's TLS settings for this engine
 */
public record SourceConnection(Engine engine, String host, int port, String database, String user, String password,
    Map<String, String> tls) {

  public static final String CONNECTOR_CLASS = "connector.class";
  public static final String HOSTNAME = "database.hostname";
  public static final String PORT = "database.port";
  public static final String DBNAME = "database.dbname";
  public static final String USER = "database.user";
  public static final String PASSWORD = "database.password";

  public SourceConnection {
    tls = Map.copyOf(tls);
  }

  /** Turns a config value that may be a reference into the value itself; {@code key} names it in an error. */
  @FunctionalInterface
  public interface Secrets {
    String resolve(String key, String value);

    /** Values as the config holds them: for a config whose references are resolved already. */
    Secrets AS_GIVEN = (key, value) -> value;
  }

  /** The config lacks what a connection needs, or is not a source Sluice knows; {@link #key()} names the setting. */
  public static final class Incomplete extends IllegalArgumentException {
    private final String key;

    Incomplete(String key, String message) {
      super(message);
      this.key = key;
    }

    public String key() {
      return key;
    }
  }

  /**
   * The connection of a source config, its engine from {@code connector.class}.
   *
   * @throws Incomplete when the class is not one of a known {@link Engine}, or a setting the connection needs is absent
   *     or malformed
   */
  public static SourceConnection of(Map<String, String> config, Secrets secrets) {
    String cls = config.get(CONNECTOR_CLASS);
    Engine engine = Engine.ofConnectorClass(cls).orElseThrow(() -> new Incomplete(CONNECTOR_CLASS,
        "not a source database Sluice knows: " + cls + " (Sluice knows " + String.join(", ",
            Engine.allConnectorClasses()) + ")"));
    return of(engine, config, secrets);
  }

  /** As {@link #of(Map, Secrets)}, for a config already known to be of {@code engine}. */
  public static SourceConnection of(Engine engine, Map<String, String> config, Secrets secrets) {
    String host = value(config, HOSTNAME, secrets);
    if (host == null) {
      throw new Incomplete(HOSTNAME, "the " + engine + " source has no " + HOSTNAME);
    }
    String database = null;
    if (engine.urlNamesDatabase()) {
      database = value(config, DBNAME, secrets);
      if (database == null) {
        throw new Incomplete(DBNAME, "the " + engine + " source has no " + DBNAME);
      }
    }
    String portText = value(config, PORT, secrets);
    int port;
    try {
      port = portText == null ? engine.defaultPort() : Integer.parseInt(portText);
    } catch (NumberFormatException e) {
      throw new Incomplete(PORT, PORT + " is not a port number: " + portText);
    }
    if (port < 1 || port > 65535) {
      throw new Incomplete(PORT, PORT + " is not a port number: " + portText);
    }
    String password = config.get(PASSWORD);
    password = password == null || password.isEmpty() ? null : secrets.resolve(PASSWORD, password);
    Map<String, String> tls = new TreeMap<>();
    engine.tlsKeys().forEach((key, property) -> {
      String v = value(config, key, secrets);
      if (v != null) {
        tls.put(property, v);
      }
    });
    return new SourceConnection(engine, host, port, database, value(config, USER, secrets), password, tls);
  }

  /** The JDBC URL of the connection: {@code jdbc:postgresql://host:port/db}, {@code jdbc:mysql://host:port/}, … */
  public String jdbcUrl() {
    return engine.jdbcUrl(host, port, database);
  }

  /** The driver properties: user, password and TLS settings, where the config has them. */
  public Properties properties() {
    return driverProperties(user, password, tls);
  }

  /** A JDBC driver's properties for {@code user} with {@code password} (each where not null) and {@code tls}. */
  public static Properties driverProperties(String user, String password, Map<String, String> tls) {
    Properties p = new Properties();
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    tls.forEach(p::setProperty);
    return p;
  }

  /** The URL and user; never the password. */
  @Override
  public String toString() {
    return engine + " " + jdbcUrl() + " as " + user;
  }

  private static String value(Map<String, String> config, String key, Secrets secrets) {
    String v = config.get(key);
    if (v == null || v.isBlank()) {
      return null;
    }
    v = secrets.resolve(key, v.trim());
    return v == null || v.isBlank() ? null : v.trim();
  }
}
