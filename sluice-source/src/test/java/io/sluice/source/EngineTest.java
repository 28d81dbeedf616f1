package io.sluice.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class EngineTest {
  @Test
  void eachDebeziumSourceClassHasOneEngine() {
    assertEquals(Optional.of(Engine.POSTGRESQL),
        Engine.ofConnectorClass("io.debezium.connector.postgresql.PostgresConnector"));
    assertEquals(Optional.of(Engine.MYSQL), Engine.ofConnectorClass("io.debezium.connector.mysql.MySqlConnector"));
    assertEquals(Optional.of(Engine.MARIADB),
        Engine.ofConnectorClass(" io.debezium.connector.mariadb.MariaDbConnector "));
    assertEquals(Optional.of(Engine.SQL_SERVER),
        Engine.ofConnectorClass("io.debezium.connector.sqlserver.SqlServerConnector"));
    assertEquals(Optional.empty(), Engine.ofConnectorClass("io.debezium.connector.jdbc.JdbcSinkConnector"));
    assertEquals(Optional.empty(), Engine.ofConnectorClass("io.debezium.connector.mongodb.MongoDbConnector"));
    assertEquals(Optional.empty(), Engine.ofConnectorClass(null));
    assertEquals(4, Engine.allConnectorClasses().size());
  }

  @Test
  void namesSchemesPortsAndHistory() {
    assertEquals("PostgreSQL", Engine.POSTGRESQL.toString());
    assertEquals("SQL Server", Engine.SQL_SERVER.displayName());
    assertEquals("mariadb", Engine.MARIADB.jdbcScheme());
    assertEquals(5432, Engine.POSTGRESQL.defaultPort());
    assertEquals(3306, Engine.MARIADB.defaultPort());
    assertEquals(1433, Engine.SQL_SERVER.defaultPort());
    assertFalse(Engine.POSTGRESQL.keepsSchemaHistory());
    assertTrue(Engine.MYSQL.keepsSchemaHistory() && Engine.MARIADB.keepsSchemaHistory()
        && Engine.SQL_SERVER.keepsSchemaHistory());
  }
}
