package io.sluice.ops.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PipelineTablesTest {
  private static final Map<String, String> SOURCE = Map.of(
      "connector.class", "io.debezium.connector.postgresql.PostgresConnector", "database.hostname", "db1",
      "database.port", "5433", "database.dbname", "app", "database.user", "cdc",
      "database.password", "${sluice:orders-source:database.password}", "topic.prefix", "shop");

  @Test
  void pairsEachTopicOfTheSourceWithTheTableTheSinkNamesAfterIt() {
    Map<String, String> sink = Map.of("connection.url", "jdbc:postgresql://db2:5432/dw", "connection.username", "w",
        "connection.password", "plain", "topics", "shop.public.orders,shop.public.customers");
    List<PipelineTables.Pair> pairs = PipelineTables.of(SOURCE, sink,
        List.of("shop.public.orders", "shop.public.customers", "other.public.x", "__debezium-heartbeat.shop"),
        (value, what) -> value.startsWith("${") ? "resolved:" + what : value);
    assertEquals(2, pairs.size());
    PipelineTables.Pair orders = pairs.get(0);
    assertEquals("public.orders", orders.sourceTable());
    assertEquals("shop_public_orders", orders.sinkTable(), "${topic} with its dots as underscores, as Debezium's sink");
    assertEquals("jdbc:postgresql://db1:5433/app", orders.source().jdbcUrl());
    assertEquals("cdc", orders.source().user());
    assertEquals("resolved:the source's database.password", orders.source().password());
    assertEquals("jdbc:postgresql://db2:5432/dw", orders.sink().jdbcUrl());
    assertEquals("plain", orders.sink().password());
  }

  @Test
  void followsTheSinksCollectionNameFormat() {
    assertEquals("orders", PipelineTables.sinkTable("orders", "shop.public.orders", "public.orders"));
    assertEquals("cdc_orders", PipelineTables.sinkTable("cdc_${source.table}", "shop.public.orders", "public.orders"));
    assertEquals("public_orders", PipelineTables.sinkTable("${source.schema}.${source.table}", "shop.public.orders",
        "public.orders"));
  }

  @Test
  void refusesWhatItCannotCompare() {
    Map<String, String> mongo = Map.of("connector.class", "io.debezium.connector.mongodb.MongoDbConnector",
        "database.hostname", "m", "topic.prefix", "p");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PipelineTables.of(mongo,
        Map.of("connection.url", "jdbc:postgresql://x/y"), List.of("p.a.b"), (v, w) -> v));
    assertTrue(e.getMessage().contains("PostgreSQL, MySQL and MariaDB"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> PipelineTables.of(SOURCE, Map.of("topics", "shop.a.b"),
        List.of("shop.a.b"), (v, w) -> v));
    assertTrue(e.getMessage().contains("connection.url"), e.getMessage());
  }
}
