package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How long putting the positions back would take, worked out before a change: stopping and resuming the connectors,
 * writing the records at the write rate last measured on this machine (a conservative default until then), and
 * verifying them, which reads at most what the backup read just read. Surgery whose restore could not finish within
 * the budget (5 minutes) is not started.
 */
public record RestoreEstimate(long records, double writePerSecond, Duration write, Duration verify,
    Duration connectors, Duration total) {

  /** Stop (tasks flush and shut down, 5 s graceful timeout by default) and resume, with room for a busy worker. */
  static final Duration CONNECTOR_ALLOWANCE = Duration.ofSeconds(30);
  /** Each further connector: its stop and resume are two more REST calls and a task shutdown. */
  static final Duration FURTHER_CONNECTOR_ALLOWANCE = Duration.ofSeconds(5);
  /** Until a write of this size was measured here: far below what one broker takes, so estimates err long. */
  static final double DEFAULT_WRITE_PER_SECOND = 2_000;
  private static final long MEASURE_MIN_RECORDS = 1_000;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String RATES_FILE = "write-rate.json";

  static RestoreEstimate of(long records, Duration lastFullRead, int connectors, Path backupDir) {
    double rate = measuredWriteRate(backupDir);
    Duration write = Duration.ofMillis((long) Math.ceil(records / rate * 1000));
    Duration connectorTime = connectors == 0 ? Duration.ZERO
        : CONNECTOR_ALLOWANCE.plus(FURTHER_CONNECTOR_ALLOWANCE.multipliedBy(connectors - 1L));
    return new RestoreEstimate(records, rate, write, lastFullRead, connectorTime,
        write.plus(lastFullRead).plus(connectorTime));
  }

  /**
   * The estimate for putting {@code records} back, or a refusal when that could take longer than {@code budget}:
   * surgery is not started when the original state could not be restored within it.
   */
  static RestoreEstimate within(Duration budget, long records, Duration lastFullRead, int connectors, Path backupDir) {
    RestoreEstimate estimate = of(records, lastFullRead, connectors, backupDir);
    if (estimate.total().compareTo(budget) > 0) {
      throw OffsetSurgeryException.refused("restoring the current positions could take "
          + OffsetSurgery.human(estimate.total()) + " (" + records + " records at "
          + Math.round(estimate.writePerSecond()) + "/s, verification " + OffsetSurgery.human(estimate.verify()) + ", "
          + OffsetSurgery.human(estimate.connectors()) + " to stop and resume connectors), more than the "
          + OffsetSurgery.human(budget) + " budget: surgery is not started when the original state could not be"
          + " restored within it");
    }
    return estimate;
  }

  /** Remembers the rate of a write large enough to be a measurement rather than a round trip. */
  static void recordWrite(Path backupDir, long records, Duration took) {
    if (records < MEASURE_MIN_RECORDS || took.isZero()) {
      return;
    }
    try {
      Files.createDirectories(backupDir);
      double rate = records / (took.toNanos() / 1e9);
      Files.writeString(backupDir.resolve(RATES_FILE), JSON.createObjectNode().put("write_per_second", rate)
          .put("records", records).put("millis", took.toMillis()).toString());
    } catch (IOException e) {
      // A rate not remembered only makes the next estimate more conservative.
    }
  }

  static double measuredWriteRate(Path backupDir) {
    try {
      Path f = backupDir.resolve(RATES_FILE);
      if (Files.exists(f)) {
        JsonNode n = JSON.readTree(f.toFile());
        double r = n.path("write_per_second").asDouble(0);
        if (r > 0) {
          return r;
        }
      }
    } catch (IOException e) {
      // Falls back to the default below.
    }
    return DEFAULT_WRITE_PER_SECOND;
  }
}
