package io.sluice.connect.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SchemaHistoryClientsTest {
  private static Map<String, String> missing(String connectorClass) {
    return SchemaHistoryClients.missing(Map.of("connector.class", connectorClass, "topic.prefix", "shop"),
        Set.of("security.protocol"));
  }

  @Test
  void sourcesWithAHistoryGetTheWorkersCluster() {
    for (String cls : new String[] {"io.debezium.connector.mysql.MySqlConnector",
        "io.debezium.connector.mariadb.MariaDbConnector", "io.debezium.connector.sqlserver.SqlServerConnector",
        "io.debezium.connector.oracle.OracleConnector"}) {
      Map<String, String> out = missing(cls);
      assertEquals("shop-schema-history", out.get("schema.history.internal.kafka.topic"), cls);
      assertTrue(out.containsKey("schema.history.internal.producer.security.protocol"), cls);
    }
  }

  @Test
  void othersGetNothing() {
    assertEquals(Map.of(), missing("io.debezium.connector.postgresql.PostgresConnector"));
    assertEquals(Map.of(), missing("io.debezium.connector.jdbc.JdbcSinkConnector"));
    assertEquals(Map.of(), SchemaHistoryClients.missing(Map.of("topic.prefix", "shop"), Set.of()));
  }
}
