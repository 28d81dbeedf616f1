package io.sluice.source;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The database engines of the Debezium sources Sluice knows, each with what the rest of Sluice needs to know of it: the
 * connector class(es) that read it, how its JDBC URL is spelled and its default port, and which of Debezium's
 * {@code database.*} TLS settings its driver takes. Every feature that asks "which database is behind this connector"
 * asks {@link #ofConnectorClass}; adding an engine is one constant here (a feature that does something per engine
 * says for which it does, and refuses or skips the rest).
 */
public enum Engine {
  POSTGRESQL("PostgreSQL", "postgresql", 5432, "/", true, false,
      List.of("io.debezium.connector.postgresql.PostgresConnector"),
      // Debezium passes these to PostgreSQL's driver under the same names without the prefix.
      tls("sslmode", "sslcert", "sslkey", "sslpassword", "sslrootcert", "sslfactory")),
  MYSQL("MySQL", "mysql", 3306, "/", false, true, List.of("io.debezium.connector.mysql.MySqlConnector"), Map.of()),
  /** MariaDB's plugin carries MariaDB's driver only, which takes its own URL scheme. */
  MARIADB("MariaDB", "mariadb", 3306, "/", false, true, List.of("io.debezium.connector.mariadb.MariaDbConnector"), Map.of()),
  SQL_SERVER("SQL Server", "sqlserver", 1433, "", false, true,
      List.of("io.debezium.connector.sqlserver.SqlServerConnector"), Map.of());

  private final String displayName;
  private final String jdbcScheme;
  private final int defaultPort;
  private final String urlPath;
  private final boolean urlNamesDatabase;
  private final boolean schemaHistory;
  private final List<String> connectorClasses;
  private final Map<String, String> tlsKeys;

  Engine(String displayName, String jdbcScheme, int defaultPort, String urlPath, boolean urlNamesDatabase,
      boolean schemaHistory, List<String> connectorClasses, Map<String, String> tlsKeys) {
    this.displayName = displayName;
    this.jdbcScheme = jdbcScheme;
    this.defaultPort = defaultPort;
    this.urlPath = urlPath;
    this.urlNamesDatabase = urlNamesDatabase;
    this.schemaHistory = schemaHistory;
    this.connectorClasses = connectorClasses;
    this.tlsKeys = tlsKeys;
  }

  /** The engine of a connector class; empty for a class that is not a source Sluice knows (a sink, MongoDB, null). */
  public static Optional<Engine> ofConnectorClass(String connectorClass) {
    if (connectorClass == null) {
      return Optional.empty();
    }
    String c = connectorClass.trim();
    return Arrays.stream(values()).filter(e -> e.connectorClasses.contains(c)).findFirst();
  }

  /** Every connector class of every engine, in the order of the engines. */
  public static List<String> allConnectorClasses() {
    return Arrays.stream(values()).flatMap(e -> e.connectorClasses.stream()).toList();
  }

  /** The engine as operators name it: PostgreSQL, MySQL, MariaDB, SQL Server. */
  public String displayName() {
    return displayName;
  }

  /** The scheme of its JDBC URLs, after {@code jdbc:}. */
  public String jdbcScheme() {
    return jdbcScheme;
  }

  /** The port its server listens on unless told otherwise, which Debezium assumes when the config names none. */
  public int defaultPort() {
    return defaultPort;
  }

  /**
   * Whether a connection names one database ({@code database.dbname}, which the connector then requires); MySQL,
   * MariaDB and SQL Server sources connect to the server and name their databases in filters.
   */
  public boolean urlNamesDatabase() {
    return urlNamesDatabase;
  }

  /**
   * Whether its Debezium connector keeps a schema history of its own ({@code schema.history.internal.*}): every
   * engine but PostgreSQL, whose log carries each table's structure.
   */
  public boolean keepsSchemaHistory() {
    return schemaHistory;
  }

  /** The connector classes that read this engine. */
  public List<String> connectorClasses() {
    return connectorClasses;
  }

  /** Debezium's TLS settings this engine's driver takes: config key to driver property. */
  Map<String, String> tlsKeys() {
    return tlsKeys;
  }

  /** A JDBC URL of this engine; {@code database} only where {@link #urlNamesDatabase()}. */
  String jdbcUrl(String host, int port, String database) {
    // An IPv6 literal is bracketed in a URL.
    String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return "jdbc:" + jdbcScheme + "://" + h + ":" + port + urlPath + (urlNamesDatabase ? database : "");
  }

  @Override
  public String toString() {
    return displayName;
  }

  private static Map<String, String> tls(String... driverProperties) {
    return Arrays.stream(driverProperties).collect(java.util.stream.Collectors.toUnmodifiableMap(
        p -> "database." + p, p -> p));
  }
}
