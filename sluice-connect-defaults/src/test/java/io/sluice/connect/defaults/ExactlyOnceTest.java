package io.sluice.connect.defaults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ExactlyOnceTest {
  private static final String PG = "io.debezium.connector.postgresql.PostgresConnector";

  @Test
  void theBundledSourcesRequireExactlyOnceUnlessTheirConfigSaysOtherwise() {
    for (String cls : new String[] {PG, "io.debezium.connector.mysql.MySqlConnector",
        "io.debezium.connector.mariadb.MariaDbConnector", "io.debezium.connector.sqlserver.SqlServerConnector"}) {
      assertEquals(Map.of("exactly.once.support", "required"), ExactlyOnce.missing(Map.of("connector.class", cls)));
    }
    assertTrue(ExactlyOnce.missing(Map.of("connector.class", PG, "exactly.once.support", "requested")).isEmpty());
  }

  @Test
  void aThirdPartySourceASinkAndAConfigWithoutClassGetNothing() {
    assertTrue(ExactlyOnce.missing(Map.of("connector.class", "com.example.FtpSourceConnector")).isEmpty());
    assertTrue(ExactlyOnce.missing(Map.of("connector.class", "io.debezium.connector.mongodb.MongoDbConnector"))
        .isEmpty(), "a Debezium source Sluice has not checked declares nothing here");
    assertTrue(ExactlyOnce.missing(Map.of("connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector"))
        .isEmpty());
    assertTrue(ExactlyOnce.missing(Map.of()).isEmpty());
  }

  @Test
  void theGuaranteeIsExactlyOnceOnlyWhereConnectCheckedIt() {
    assertEquals(ExactlyOnce.Guarantee.EXACTLY_ONCE,
        ExactlyOnce.guarantee(Map.of("connector.class", PG, "exactly.once.support", "required")));
    assertNull(ExactlyOnce.whyAtLeastOnce("source", Map.of("connector.class", PG, "exactly.once.support", "required")));
    assertEquals(ExactlyOnce.Guarantee.AT_LEAST_ONCE, ExactlyOnce.guarantee(Map.of("connector.class", PG)));
    assertTrue(ExactlyOnce.whyAtLeastOnce("source", Map.of("connector.class", PG))
        .contains("exactly.once.source.support"));
    assertEquals("FtpSourceConnector does not declare exactly-once support to Connect",
        ExactlyOnce.whyAtLeastOnce("source", Map.of("connector.class", "com.example.FtpSourceConnector")));
    assertTrue(ExactlyOnce.whyAtLeastOnce("sink", Map.of("connector.class",
        "io.debezium.connector.jdbc.JdbcSinkConnector")).startsWith("a sink"));
  }
}
