package io.sluice.ops.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.connect.offsets.OffsetRecord;
import io.sluice.connect.offsets.OffsetsTopic;
import io.sluice.connect.testing.ConnectClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The source connector under surgery in the end-to-end tests, whatever its database: stop, resume, its records. */
record SurgeryRig(ConnectClient rest, OffsetsTopic topic, String connector) {

  void stopSource() {
    assertEquals(204, rest.call("PUT", "/connectors/" + connector + "/stop", null).status());
    rest.awaitStatus(connector, s -> "STOPPED".equals(s.path("connector").path("state").asText())
        && s.path("tasks").isEmpty(), Duration.ofSeconds(90));
  }

  void resumeSource() {
    assertEquals(202, rest.call("PUT", "/connectors/" + connector + "/resume", null).status());
    rest.awaitRunning(connector);
  }

  List<OffsetRecord> sourceRecords() {
    return topic.latestFor(connector, Duration.ofSeconds(30));
  }

  /** Runs a refused operation while the source is stopped and checks that not one record was written. */
  OffsetSurgeryException refusedLeavingTopicUntouched(Runnable operation) {
    Map<Integer, Long> before = topic.endOffsets(Duration.ofSeconds(10));
    List<OffsetRecord> records = sourceRecords();
    OffsetSurgeryException e = assertThrows(OffsetSurgeryException.class, operation::run);
    assertEquals(OffsetSurgeryException.Kind.REFUSED, e.kind(), e.getMessage());
    assertEquals(before, topic.endOffsets(Duration.ofSeconds(10)), "a refused operation wrote to the topic");
    assertEquals(records, sourceRecords());
    return e;
  }
}
