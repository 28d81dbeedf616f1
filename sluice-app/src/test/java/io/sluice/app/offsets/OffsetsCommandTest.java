package io.sluice.app.offsets;

import io.sluice.app.cli.ExitCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.Main;
import io.sluice.ops.offsets.Target;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The command line of {@code sluice offsets}: flag groups, exit codes and messages of refusals that need no cluster
 * (the surgery itself is tested end to end in sluice-ops).
 */
class OffsetsCommandTest {

  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      int exit = Main.commandLine(args).execute(args);
      return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  @Test
  void resetWithoutASnapshotDecisionIsRefusedAndSaysWhatEachChoiceDoes() {
    // An unreachable cluster: the refusal comes before any connection.
    Run r = run("offsets", "reset", "orders-source", "--bootstrap", "127.0.0.1:1", "--connect-url", "http://127.0.0.1:1");
    assertEquals(ExitCode.REFUSED.code(), r.exit());
    assertTrue(r.err().contains("refused: reset needs an explicit snapshot decision"), r.err());
    for (String mode : new String[] {"initial:", "schema_only:", "never:"}) {
      assertTrue(r.err().contains(mode), r.err());
    }
    assertTrue(r.err().contains("nothing was changed"), r.err());
  }

  @Test
  void malformedAndMixedPositionsAreRefused() {
    Run malformed = run("offsets", "set", "orders-source", "--lsn", "16/XYZ", "--connect-url", "http://127.0.0.1:1");
    assertEquals(ExitCode.REFUSED.code(), malformed.exit());
    assertTrue(malformed.err().contains("malformed LSN '16/XYZ'"), malformed.err());

    Run mixed = run("offsets", "set", "orders-source", "--lsn", "0/1", "--file", "mysql-bin.000001", "--pos", "4");
    assertEquals(ExitCode.REFUSED.code(), mixed.exit());
    assertTrue(mixed.err().contains("give exactly one position"), mixed.err());

    Run unknownMode = run("offsets", "reset", "orders-source", "--snapshot", "sometimes");
    assertEquals(ExitCode.REFUSED.code(), unknownMode.exit());
    assertTrue(unknownMode.err().contains("unknown snapshot mode 'sometimes'"), unknownMode.err());
  }

  @Test
  void aSinkRecordNeedsAllThreeFlagsAndToDlqNeedsARecord() {
    String[] cluster = {"--bootstrap", "127.0.0.1:1", "--connect-url", "http://127.0.0.1:1"};
    Run partial = run(concat(new String[] {"offsets", "skip", "orders-sink", "--topic", "orders", "--offset", "5"},
        cluster));
    assertEquals(2, partial.exit(), partial.err());
    assertTrue(partial.err().contains("--partition"), partial.err());
    Run dlqAlone = run(concat(new String[] {"offsets", "skip", "orders-sink", "--to-dlq"}, cluster));
    assertEquals(2, dlqAlone.exit(), dlqAlone.err());
    assertTrue(dlqAlone.err().contains("--to-dlq is for a sink"), dlqAlone.err());
    Run negative = run(concat(new String[] {"offsets", "skip", "orders-sink", "--topic", "orders", "--partition", "0",
        "--offset", "-1"}, cluster));
    assertEquals(2, negative.exit(), negative.err());
    assertTrue(negative.err().contains("an offset is not negative"), negative.err());
  }

  private static String[] concat(String[] a, String[] b) {
    return java.util.stream.Stream.concat(java.util.Arrays.stream(a), java.util.Arrays.stream(b))
        .toArray(String[]::new);
  }

  @Test
  void flagGroupsBecomeTargets() {
    assertEquals(new Target.Lsn(0x16B3748L), Targets.parse("0/16B3748", null, null, null, null, null));
    assertInstanceOf(Target.Binlog.class, Targets.parse(null, "mysql-bin.000003", "154", null, null, null));
    assertInstanceOf(Target.ChangeLsn.class,
        Targets.parse(null, null, null, null, "0000002d:00000a40:0002", "0000002d:00000a58:0003"));
    assertThrows(IllegalArgumentException.class, () -> Targets.parse(null, null, null, null, null, null));
  }

  @Test
  void anUnreachableClusterEndsAsUnreachable() {
    Run r = run("offsets", "show", "orders-source", "--bootstrap", "127.0.0.1:1", "--connect-url", "http://127.0.0.1:1");
    assertEquals(ExitCode.UNREACHABLE.code(), r.exit(), r.err());
    assertTrue(r.err().contains("cannot reach Kafka Connect at http://127.0.0.1:1"), r.err());
  }

  @Test
  void jsonOutputIsPlainDataForMachines() throws Exception {
    var manifest = new io.sluice.connect.offsets.OffsetBackup.Manifest("sluice-offsets-backup/1",
        java.time.Instant.parse("2026-11-23T10:00:00Z"), "cluster-1", "connect-offsets", null,
        java.util.Map.of(0, 12L), 12, 1, "ab");
    var report = new io.sluice.ops.offsets.OffsetSurgery.BackupReport(java.nio.file.Path.of("/tmp/b.tsv"), manifest,
        java.time.Duration.ofMillis(1500));
    Output output = new Output();
    output.format = "json";
    PrintStream out = System.out;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      output.print(report, () -> "table");
    } finally {
      System.setOut(out);
    }
    var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(o.toString(StandardCharsets.UTF_8));
    assertEquals("/tmp/b.tsv", json.path("file").asText());
    assertEquals(1500, json.path("elapsed").asLong());
    assertEquals("2026-11-23T10:00:00Z", json.path("manifest").path("created").asText());
    assertEquals(12, json.path("manifest").path("end_offsets").path("0").asLong());
    assertTrue(Printing.backup(report).contains("records:  12 (1 tombstones)"), Printing.backup(report));
  }
}
