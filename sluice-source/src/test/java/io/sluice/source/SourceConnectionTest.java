package io.sluice.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class SourceConnectionTest {
  private static Map<String, String> config(String cls, String... kv) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", cls);
    for (int i = 0; i < kv.length; i += 2) {
      c.put(kv[i], kv[i + 1]);
    }
    return c;
  }

  @Test
  void eachEngineSpellsItsUrl() {
    assertEquals("jdbc:postgresql://db1:5433/app", SourceConnection.of(config(
        "io.debezium.connector.postgresql.PostgresConnector", "database.hostname", "db1", "database.port", "5433",
        "database.dbname", "app"), SourceConnection.Secrets.AS_GIVEN).jdbcUrl());
    assertEquals("jdbc:postgresql://db1:5432/app", SourceConnection.of(config(
        "io.debezium.connector.postgresql.PostgresConnector", "database.hostname", "db1", "database.dbname", "app"),
        SourceConnection.Secrets.AS_GIVEN).jdbcUrl());
    assertEquals("jdbc:mysql://h:3307/", SourceConnection.of(config("io.debezium.connector.mysql.MySqlConnector",
        "database.hostname", "h", "database.port", "3307"), SourceConnection.Secrets.AS_GIVEN).jdbcUrl());
    assertEquals("jdbc:mariadb://h:3306/", SourceConnection.of(config(
        "io.debezium.connector.mariadb.MariaDbConnector", "database.hostname", " h "),
        SourceConnection.Secrets.AS_GIVEN).jdbcUrl());
    assertEquals("jdbc:sqlserver://h:1433", SourceConnection.of(config(
        "io.debezium.connector.sqlserver.SqlServerConnector", "database.hostname", "h", "database.port", ""),
        SourceConnection.Secrets.AS_GIVEN).jdbcUrl());
    assertEquals("jdbc:postgresql://[::1]:5432/app", SourceConnection.of(config(
        "io.debezium.connector.postgresql.PostgresConnector", "database.hostname", "::1", "database.dbname", "app"),
        SourceConnection.Secrets.AS_GIVEN).jdbcUrl());
  }

  @Test
  void refusesWhatTheConnectorWouldRefuse() {
    var e = assertThrows(SourceConnection.Incomplete.class, () -> SourceConnection.of(config(
        "io.debezium.connector.postgresql.PostgresConnector", "database.dbname", "app"),
        SourceConnection.Secrets.AS_GIVEN));
    assertEquals("database.hostname", e.key());
    e = assertThrows(SourceConnection.Incomplete.class, () -> SourceConnection.of(config(
        "io.debezium.connector.postgresql.PostgresConnector", "database.hostname", "h", "database.dbname", " "),
        SourceConnection.Secrets.AS_GIVEN));
    assertEquals("database.dbname", e.key());
    e = assertThrows(SourceConnection.Incomplete.class, () -> SourceConnection.of(config(
        "io.debezium.connector.mysql.MySqlConnector", "database.hostname", "h", "database.port", "x"),
        SourceConnection.Secrets.AS_GIVEN));
    assertEquals("database.port", e.key());
    e = assertThrows(SourceConnection.Incomplete.class, () -> SourceConnection.of(config(
        "io.debezium.connector.mongodb.MongoDbConnector", "database.hostname", "h"), SourceConnection.Secrets.AS_GIVEN));
    assertEquals("connector.class", e.key());
  }

  @Test
  void credentialsAndTlsGoToTheDriverWithReferencesResolvedByTheCaller() {
    SourceConnection c = SourceConnection.of(config("io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname", "h", "database.dbname", "app", "database.user", "cdc",
        "database.password", "${sluice:src:database.password}", "database.sslmode", "verify-full",
        "database.sslrootcert", "/ca.pem", "database.sslpassword", "${sluice:src:database.sslpassword}"),
        (key, value) -> value.startsWith("${") ? "clear:" + key : value);
    Properties p = c.properties();
    assertEquals("cdc", p.getProperty("user"));
    assertEquals("clear:database.password", p.getProperty("password"));
    assertEquals("verify-full", p.getProperty("sslmode"));
    assertEquals("/ca.pem", p.getProperty("sslrootcert"));
    assertEquals("clear:database.sslpassword", p.getProperty("sslpassword"));
    assertFalse(c.toString().contains("clear:"), "no secret in " + c);

    SourceConnection bare = SourceConnection.of(config("io.debezium.connector.mysql.MySqlConnector",
        "database.hostname", "h", "database.sslmode", "required"), SourceConnection.Secrets.AS_GIVEN);
    assertNull(bare.user());
    assertNull(bare.password());
    assertTrue(bare.properties().isEmpty(), "MySQL's driver names its TLS settings otherwise: none passed");
  }
}
