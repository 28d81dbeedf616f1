package io.sluice.sink.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;

/**
 * How the sink's own writers connect: the sink's URL, user and password, and the driver properties Debezium's pool
 * connects with ({@code hibernate.agroal.jdbcProperties}: ssl and the like), so that their sessions are set up as
 * Debezium's are.
 */
record SinkConnection(String url, Properties properties) {
  static SinkConnection of(Map<String, String> props) {
    Properties properties = new Properties();
    String driverProperties = props.get("hibernate.agroal.jdbcProperties");
    // As Agroal reads them: k=v;k=v.
    for (String pair : driverProperties == null ? new String[0] : driverProperties.split(";")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        properties.setProperty(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
      }
    }
    if (props.get("connection.username") != null) {
      properties.setProperty("user", props.get("connection.username"));
    }
    if (props.get("connection.password") != null) {
      properties.setProperty("password", props.get("connection.password"));
    }
    return new SinkConnection(props.getOrDefault("connection.url", ""), properties);
  }

  /** A new connection, in a transaction of its own (autocommit off). */
  Connection open() throws SQLException {
    Connection c = DriverManager.getConnection(url, properties);
    c.setAutoCommit(false);
    return c;
  }

  /** Rolls back and closes {@code connection} (null: nothing), quietly: it may be broken already. */
  static void discard(Connection connection) {
    if (connection == null) {
      return;
    }
    try {
      connection.rollback();
      connection.close();
    } catch (SQLException ignored) {
      // Broken already; the writer opens a new one for its next put.
    }
  }
}
