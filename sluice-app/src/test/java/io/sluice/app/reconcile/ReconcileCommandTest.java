package io.sluice.app.reconcile;

import io.sluice.app.Main;
import io.sluice.app.cli.ExitCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.connect.testing.SharedPostgres;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice reconcile} against two real PostgreSQL databases: exit codes, table and JSON output, YAML file. */
class ReconcileCommandTest {
  static String source;
  static String sink;

  @BeforeAll
  static void databases() throws Exception {
    source = SharedPostgres.createDatabase("cli_reconcile_source") + "?user=postgres&password=postgres";
    sink = SharedPostgres.createDatabase("cli_reconcile_sink") + "?user=postgres&password=postgres";
    for (String db : new String[] {"cli_reconcile_source", "cli_reconcile_sink"}) {
      try (Connection c = SharedPostgres.connect(db); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE customers (id int PRIMARY KEY, name text, balance numeric(10,2))");
        s.execute("INSERT INTO customers SELECT i, 'customer ' || i, i * 2.5 FROM generate_series(1, 2000) i");
        s.execute("CREATE TABLE orders (id int PRIMARY KEY, customer int, note text)");
        s.execute("INSERT INTO orders SELECT i, i % 50, 'order ' || i FROM generate_series(1, 1000) i");
      }
    }
    try (Connection c = SharedPostgres.connect("cli_reconcile_sink"); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE orders_copy AS SELECT * FROM orders");
      s.execute("ALTER TABLE orders_copy ADD PRIMARY KEY (id)");
      s.execute("DELETE FROM orders WHERE id IN (10, 20)");
      s.execute("UPDATE orders SET note = NULL WHERE id = 30");
    }
  }

  record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    // Through sluice's own command line: --verbose is an option of every command, inherited from it.
    String[] line = new String[args.length + 1];
    line[0] = "reconcile";
    System.arraycopy(args, 0, line, 1, args.length);
    int exit = io.sluice.app.Main.commandLine(line).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute(line);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void equalTablesExitZero() {
    Run r = run("--source", source, "--sink", sink, "--table", "customers");
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().contains("customers (PostgreSQL) -> customers (PostgreSQL): EQUAL"), r.out());
    assertTrue(r.out().matches("(?s).*rows\\s+2,000 source\\s+2,000 sink.*"), r.out());
  }

  @Test
  void differencesExitOneWithJsonCountsAndExamples() throws Exception {
    Run r = run("--source", source, "--sink", sink, "--table", "orders", "-o", "json", "--limit-rows", "1");
    assertEquals(1, r.exit(), r.err());
    JsonNode root = new ObjectMapper().readTree(r.out());
    assertEquals("different", root.path("status").asText());
    JsonNode t = root.path("tables").get(0);
    assertEquals("different", t.path("status").asText());
    assertEquals(1000, t.path("sourceRows").asLong());
    assertEquals(998, t.path("sinkRows").asLong());
    assertEquals(2, t.path("missing").asLong());
    assertEquals(0, t.path("extra").asLong());
    assertEquals(1, t.path("changed").asLong());
    assertEquals(1, t.path("missingExamples").size(), "--limit-rows limits examples, not counts");
    JsonNode mismatch = t.path("mismatchExamples").get(0);
    assertEquals("30", mismatch.path("key").path("id").asText());
    assertEquals("note", mismatch.path("columns").get(0).path("column").asText());
    assertEquals("order 30", mismatch.path("columns").get(0).path("source").asText());
    assertTrue(mismatch.path("columns").get(0).path("sink").isNull());
    assertTrue(t.path("sourceChecksum").asText().matches("[0-9a-f]{16}"));
  }

  @Test
  void tableOutputListsDifferencesAndVerboseSegments() {
    Run r = run("--source", source, "--sink", sink, "--table", "orders", "--verbose");
    assertEquals(1, r.exit());
    assertTrue(r.out().contains("orders (PostgreSQL) -> orders (PostgreSQL): DIFFERENT"), r.out());
    assertTrue(r.out().contains("missing rows:\n    id='10'\n    id='20'") || r.out().contains("missing rows:\n    id='20'\n    id='10'"), r.out());
    assertTrue(r.out().contains("note: 'order 30' (source)  NULL (sink)"), r.out());
    assertTrue(r.out().contains("segments:") && r.out().contains("DIFFERENT\n"), r.out());
  }

  @Test
  void errorsExitWithTheirKind() {
    Run missing = run("--source", source, "--sink", sink, "--table", "nope");
    assertEquals(ExitCode.REFUSED.code(), missing.exit());
    assertTrue(missing.err().contains("source table nope not found"), missing.err());
    Run usage = run("--source", source, "--table", "orders");
    assertEquals(2, usage.exit());
    assertTrue(usage.err().contains("--source and --sink are required"), usage.err());
    Run unreachable = run("--source", "jdbc:postgresql://127.0.0.1:1/x?user=a&password=secret", "--sink", sink,
        "--table", "orders", "-o", "json");
    assertEquals(ExitCode.UNREACHABLE.code(), unreachable.exit(), unreachable.err());
    assertTrue(unreachable.err().contains("cannot connect to the source"), unreachable.err());
    assertTrue(!unreachable.err().contains("secret"), "passwords are not printed");
    assertTrue(unreachable.out().contains("\"status\" : \"error\""), unreachable.out());
  }

  @Test
  void pipelineTakesItsTablesFromTheConnectorsAlone() {
    Run both = run("--pipeline", "orders-source", "--source", source, "--sink", sink);
    assertEquals(2, both.exit());
    assertTrue(both.err().contains("--pipeline takes the tables and connections from the connectors"), both.err());
    // Connect not there: the error names it, exit 4 (the console's page answers 502 for the same).
    Run noConnect = run("--pipeline", "orders-source", "--connect-url", "http://127.0.0.1:1");
    assertEquals(ExitCode.UNREACHABLE.code(), noConnect.exit(), noConnect.err());
    assertTrue(noConnect.err().startsWith("error: "), noConnect.err());
  }

  @Test
  void yamlFileOfManyTables(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tables.yaml");
    Files.writeString(file, String.join("\n",
        "source: " + source,
        "sink: " + sink,
        "lag-window: 1s",
        "tables:",
        "  - table: customers",
        "  - table: orders",
        "    sink-table: orders_copy",
        "  - table: orders",
        "    where: id < 25",
        ""));
    Run r = run("--file", file.toString(), "-o", "json");
    assertEquals(1, r.exit(), r.err());
    JsonNode tables = new ObjectMapper().readTree(r.out()).path("tables");
    assertEquals(3, tables.size());
    assertEquals("equal", tables.get(0).path("status").asText());
    assertEquals("orders_copy", tables.get(1).path("sinkTable").asText());
    assertEquals("equal", tables.get(1).path("status").asText());
    assertEquals(24, tables.get(2).path("sourceRows").asLong());
    assertEquals(22, tables.get(2).path("sinkRows").asLong());
    assertEquals(2, tables.get(2).path("missing").asLong());
    assertEquals(0, tables.get(2).path("changed").asLong());
  }

  @Test
  void explainPrintsPlainSql() {
    Run r = run("--source", source, "--sink", source, "--table", "orders:customers", "--explain");
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().contains("-- row count (source)\nSELECT count(*) FROM \"orders\";"), r.out());
    assertTrue(r.out().contains("-- missing rows (in the source, not in the sink)\nSELECT s.\"id\" FROM \"orders\" s WHERE NOT EXISTS"), r.out());
    assertTrue(r.out().contains("sum(hashint8extended(hash_record_extended(ROW(\"id\"), 0), 0))"), r.out());
    Run apart = run("--source", source, "--sink", sink, "--table", "orders", "--explain");
    assertTrue(apart.out().contains("not reachable from one connection"), apart.out());
  }

  @Test
  void durations() {
    assertEquals(Duration.ofSeconds(30), ReconcileCommand.duration("30s"));
    assertEquals(Duration.ofMillis(500), ReconcileCommand.duration("500ms"));
    assertEquals(Duration.ofMinutes(2), ReconcileCommand.duration("2m"));
    assertEquals(Duration.ofSeconds(90), ReconcileCommand.duration("PT1M30S"));
  }
}
