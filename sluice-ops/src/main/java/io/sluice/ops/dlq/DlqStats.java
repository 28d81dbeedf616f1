package io.sluice.ops.dlq;

import java.time.Instant;
import java.util.List;

/**
 * The state of one dead-letter topic: how much it holds, how fast it grows, and whether the sinks feeding it keep up.
 *
 * @param topic the dead-letter topic
 * @param partitions earliest and latest offset of each partition
 * @param records records held (latest minus earliest, summed)
 * @param lastHour records that arrived in the last hour
 * @param perHourLastDay records per hour, averaged over the last 24 hours
 * @param newest timestamp of the newest record, or null when empty
 * @param sinks the sink connectors writing into this topic and the lag of their consumer groups
 * @param at when the numbers were taken
 * @param warning what could not be found out (Connect unreachable: sinks then come from the records' headers only),
 *     or null
 */
public record DlqStats(String topic, List<PartitionOffsets> partitions, long records, long lastHour,
                       double perHourLastDay, Instant newest, List<SinkLag> sinks, Instant at, String warning) {

  /** One partition's offsets. */
  public record PartitionOffsets(int partition, long earliest, long latest) {}

  /**
   * The consumer group of a sink connector ({@code connect-<name>} unless overridden) and how far behind it is.
   *
   * @param connector the connector name
   * @param group its consumer group
   * @param lag records not yet consumed, summed over the group's partitions; null when the group has no offsets
   * @param partitions per-partition lag
   * @param state the connector's state from the Connect REST API, or null when it was not asked
   */
  public record SinkLag(String connector, String group, Long lag, List<PartitionLag> partitions, String state) {}

  /** Lag of one partition of a sink group. */
  public record PartitionLag(String topic, int partition, long committed, long latest, long lag) {}
}
