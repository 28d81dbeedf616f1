package io.sluice.exporter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.kafka.testing.SharedKafka;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** PostgreSQL's estimates of a snapshot's tables, every table in one statement, against the shared server. */
class RowEstimatesTest {
  @Test
  void readsEveryTableOfASnapshotByItsDebeziumName() throws Exception {
    String db = SharedKafka.unique("estimates").replace('-', '_');
    SharedPostgres.createDatabase(db);
    try (Connection c = SharedPostgres.connect(db); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA shop");
      s.execute("CREATE TABLE shop.orders (id int PRIMARY KEY)");
      s.execute("INSERT INTO shop.orders SELECT generate_series(1, 1000)");
      s.execute("CREATE TABLE public.\"Items\" (id int PRIMARY KEY)");
      s.execute("INSERT INTO public.\"Items\" SELECT generate_series(1, 20)");
      // Never analyzed nor written: PostgreSQL has no estimate for it.
      s.execute("CREATE TABLE public.empty (id int)");
    }
    // The inserts' live-row counts reach the statistics when their session ends, a moment after the close.
    RowEstimates estimates = RowEstimates.forClass("io.debezium.connector.postgresql.PostgresConnector");
    try (Connection c = SharedPostgres.connect(db)) {
      Eventually.await("the statistics of both tables", Duration.ofSeconds(30), () -> {
        try {
          return estimates.read(c, List.of("shop.orders", db + ".public.Items", "public.empty", "public.missing",
              "nodot"));
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      }, m -> m.equals(Map.of("shop.orders", 1000L, db + ".public.Items", 20L)));
      assertEquals(Map.of(), estimates.read(c, List.of("nodot")));
    }
  }
}
