package io.sluice.connect.testing;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A Debezium PostgreSQL source as the tests set one up: decoding with pgoutput, on the shared server as
 * {@link Pipeline#CDC_USER} unless {@link #at} says otherwise, reading {@code db} into topics under
 * {@code topicPrefix} through replication slot {@code slot}; every table of the database unless {@link #tables}
 * names some.
 *
 * <pre>{@code
 * Map<String, String> config = PostgresSource.of(db, prefix, prefix + "_slot").tables("public\\.t_.*").config();
 * config.put("publication.name", db + "_pub");
 * }</pre>
 */
public record PostgresSource(int port, String user, String password, String db, String topicPrefix, String slot,
    String tables) {
  public static PostgresSource of(String db, String topicPrefix, String slot) {
    return new PostgresSource(SharedPostgres.port(), Pipeline.CDC_USER, Pipeline.CDC_PASSWORD, db, topicPrefix, slot,
        null);
  }

  /** Only the tables {@code includeList} names (Debezium's {@code table.include.list}: regular expressions). */
  public PostgresSource tables(String includeList) {
    return new PostgresSource(port, user, password, db, topicPrefix, slot, includeList);
  }

  /** On a server of the test's own, or as another role. */
  public PostgresSource at(int port, String user, String password) {
    return new PostgresSource(port, user, password, db, topicPrefix, slot, tables);
  }

  /** The connector's config, in a map the caller may add to. */
  public Map<String, String> config() {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    c.put("plugin.name", "pgoutput");
    c.put("database.hostname", "127.0.0.1");
    c.put("database.port", String.valueOf(port));
    c.put("database.user", user);
    c.put("database.password", password);
    c.put("database.dbname", db);
    c.put("topic.prefix", topicPrefix);
    c.put("slot.name", slot);
    if (tables != null) {
      c.put("table.include.list", tables);
    }
    return c;
  }
}
