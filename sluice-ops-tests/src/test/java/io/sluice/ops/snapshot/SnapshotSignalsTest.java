package io.sluice.ops.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The signals as Debezium's actions parse them, and the status read from them and the metrics. */
class SnapshotSignalsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant ASKED = Instant.parse("2025-01-01T10:00:00Z");

  @Test
  void executeCarriesTablesTypeAndOneConditionPerTable() throws Exception {
    var signal = Signals.execute("id-1", new SnapshotRequest(List.of("public.orders", "public.lines"),
        SnapshotRequest.Type.INCREMENTAL, Optional.of(" id > 10 ")));
    assertEquals(JSON.readTree("{\"id\":\"id-1\",\"type\":\"execute-snapshot\",\"data\":{\"data-collections\":"
        + "[\"public.orders\",\"public.lines\"],\"type\":\"incremental\",\"additional-conditions\":["
        + "{\"data-collection\":\"public.orders\",\"filter\":\"id > 10\"},"
        + "{\"data-collection\":\"public.lines\",\"filter\":\"id > 10\"}]}}"), signal);
    assertEquals(Optional.of(new SnapshotRequest(List.of("public.orders", "public.lines"),
        SnapshotRequest.Type.INCREMENTAL, Optional.of("id > 10"))), Signals.request(signal));
  }

  @Test
  void pauseResumeAndStopAsDebeziumReadsThem() throws Exception {
    assertEquals(JSON.readTree("{\"id\":\"a\",\"type\":\"pause-snapshot\",\"data\":{}}"), Signals.pause("a"));
    assertEquals(JSON.readTree("{\"id\":\"b\",\"type\":\"resume-snapshot\",\"data\":{}}"), Signals.resume("b"));
    assertEquals(JSON.readTree("{\"id\":\"c\",\"type\":\"stop-snapshot\",\"data\":{\"type\":\"incremental\"}}"),
        Signals.stop("c", List.of()));
    assertEquals(JSON.readTree("{\"id\":\"d\",\"type\":\"stop-snapshot\",\"data\":{\"type\":\"incremental\","
        + "\"data-collections\":[\"shop.orders\"]}}"), Signals.stop("d", List.of("shop.orders")));
  }

  @Test
  void tablesMustBeQualifiedAndTheTypeKnown() {
    assertThrows(IllegalArgumentException.class, () -> new SnapshotRequest(List.of("orders"),
        SnapshotRequest.Type.BLOCKING, Optional.empty()));
    assertThrows(IllegalArgumentException.class, () -> new SnapshotRequest(List.of(),
        SnapshotRequest.Type.BLOCKING, Optional.empty()));
    assertThrows(IllegalArgumentException.class, () -> SnapshotRequest.Type.parse("full"));
  }

  private static SnapshotStatus.Requested asked(String... tables) {
    return new SnapshotStatus.Requested(new SnapshotRequest(List.of(tables), SnapshotRequest.Type.INCREMENTAL,
        Optional.empty()), "id", ASKED);
  }

  private static SnapshotStatus.Metrics metrics(boolean running, boolean paused, boolean completed,
      Map<String, Long> rows, Map<String, Long> estimates, Instant at) {
    return new SnapshotStatus.Metrics(running, paused, completed, false, 1, running || paused ? 1 : 0, 3, rows,
        estimates, at);
  }

  @Test
  void progressIsRowsReadOfTheEstimate() {
    SnapshotStatus s = SnapshotStatus.of("src", Optional.of(asked("public.orders")), Optional.of(metrics(false, true,
        false, Map.of("public.orders", 250L, "public.other", 9L), Map.of("public.orders", 1000L),
        ASKED.plusSeconds(20))));
    assertEquals("paused", s.state());
    assertEquals(List.of(new SnapshotStatus.Table("public.orders", 250, Optional.of(1000L), Optional.of(25.0))),
        s.tables());
    assertEquals(Optional.of(25.0), s.percent());
  }

  @Test
  void metricsFromBeforeTheSignalShowItRequestedNotCompleted() {
    // The initial snapshot completed long ago; the scrape is older than the signal's grace.
    SnapshotStatus s = SnapshotStatus.of("src", Optional.of(asked("public.orders")), Optional.of(metrics(false, false,
        true, Map.of("public.orders", 1000L), Map.of(), ASKED.plusSeconds(3))));
    assertEquals("requested", s.state());
    assertEquals(0, s.tables().get(0).rows());
    SnapshotStatus later = SnapshotStatus.of("src", Optional.of(asked("public.orders")), Optional.of(metrics(false,
        false, true, Map.of("public.orders", 1000L), Map.of(), ASKED.plusSeconds(30))));
    assertEquals("completed", later.state());
    assertEquals(Optional.of(100.0), later.percent());
  }

  @Test
  void noMetricsIsUnknownAndNothingAskedIsIdle() {
    assertEquals("unknown", SnapshotStatus.of("src", Optional.empty(), Optional.empty()).state());
    assertEquals("idle", SnapshotStatus.of("src", Optional.empty(), Optional.of(metrics(false, false, true,
        Map.of(), Map.of(), ASKED))).state());
  }

  @Test
  void theLastExecuteSignalIsTheRequest() {
    var first = new AdHocSnapshot.Signal(Signals.execute("1", new SnapshotRequest(List.of("a.b"),
        SnapshotRequest.Type.BLOCKING, Optional.empty())), ASKED);
    var second = new AdHocSnapshot.Signal(Signals.execute("2", new SnapshotRequest(List.of("a.c"),
        SnapshotRequest.Type.INCREMENTAL, Optional.empty())), ASKED.plusSeconds(60));
    var pause = new AdHocSnapshot.Signal(Signals.pause("3"), ASKED.plusSeconds(61));
    SnapshotStatus.Requested r = SnapshotStatus.lastRequested(List.of(first, second, pause)).orElseThrow();
    assertEquals("2", r.id());
    assertEquals(List.of("a.c"), r.request().tables());
  }
}
