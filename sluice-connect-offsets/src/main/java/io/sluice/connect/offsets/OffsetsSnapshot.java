package io.sluice.connect.offsets;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The offsets topic as the worker sees it at one moment: the latest record of every key (tombstones included), the
 * cluster it was read from and the end offset of every partition when the read started. Records are sorted by key, so
 * two reads of the same state give the same list, and a backup file of them the same bytes.
 */
public record OffsetsSnapshot(String clusterId, String topic, Map<Integer, Long> endOffsets,
    List<OffsetRecord> records) {

  public OffsetsSnapshot {
    endOffsets = Map.copyOf(new TreeMap<>(endOffsets));
    records = List.copyOf(records);
  }

  /** The same snapshot narrowed to one connector's keys. */
  public OffsetsSnapshot forConnector(String connector) {
    return new OffsetsSnapshot(clusterId, topic, endOffsets,
        records.stream().filter(r -> connector.equals(OffsetsTopic.connectorOf(r.key()))).toList());
  }

  /** Without tombstones: the positions that exist. */
  public List<OffsetRecord> live() {
    return records.stream().filter(r -> r.value() != null).toList();
  }

  public long tombstones() {
    return records.stream().filter(r -> r.value() == null).count();
  }
}
