package io.sluice.ops.dlq;

import io.sluice.registry.client.WireFormat;

import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;

/**
 * One record of a dead-letter topic, its headers decoded.
 *
 * @param topic the dead-letter topic
 * @param partition its partition
 * @param offset its offset
 * @param timestamp the record's timestamp (Connect keeps the failed record's own timestamp)
 * @param key the key bytes as stored, or null
 * @param value the value bytes as stored, or null
 * @param headers every header as stored, Connect's and our own included
 * @param error Kafka Connect's error context; all nulls when the record has none
 * @param valueSchemaId the schema id of a registry-framed value (magic byte 0 + 4-byte id), or null
 * @param replay the mark of an earlier replay when this record was replayed and failed again, or null (also when the
 *     mark is damaged: {@link #replayed()} still says it was replayed)
 */
public record DlqRecord(String topic, int partition, long offset, Instant timestamp, byte[] key, byte[] value,
                        Headers headers, ErrorContext error, Integer valueSchemaId, ReplayMark replay) {

  static DlqRecord of(ConsumerRecord<byte[], byte[]> r) {
    return new DlqRecord(r.topic(), r.partition(), r.offset(), Instant.ofEpochMilli(r.timestamp()), r.key(),
        r.value(), r.headers(), ErrorContext.from(r.headers()), WireFormat.schemaIdOrNull(r.value()),
        readableMark(r.headers()));
  }

  private static ReplayMark readableMark(Headers headers) {
    try {
      return ReplayMark.from(headers);
    } catch (IllegalArgumentException damaged) {
      return null;
    }
  }

  /** Whether an earlier {@code sluice dlq replay} produced this record, its mark readable or not. */
  public boolean replayed() {
    return replay != null || ReplayMark.present(headers);
  }

  /** Why this record's replay mark cannot be read, or null when it can (or it has none). */
  public String damagedMark() {
    try {
      ReplayMark.from(headers);
      return null;
    } catch (IllegalArgumentException damaged) {
      return damaged.getMessage();
    }
  }
}
