package io.sluice.ops.dlq;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * For each partition replay writes to, an offset below which none of its records since the last commit can lie: the
 * partition's end offset when replay first wrote to it or, after each commit, at that commit (every record sent before
 * a commit is acknowledged before it). Stored in the replay group's commit metadata, so a run that resumes after a
 * crash only scans from these offsets for records it produced but had not committed yet.
 *
 * <p>Encoded as {@code sluice-dlq-replay/1 topic:0=12,1=40;other:0=5}; topic names cannot contain {@code : ; = ,}.
 */
final class TargetMarks {
  private static final String VERSION = "sluice-dlq-replay/1 ";
  /** The broker's default {@code offset.metadata.max.bytes} is 4096. */
  static final int MAX_LENGTH = 4000;

  private TargetMarks() {}

  static String encode(Map<TopicPartition, Long> marks) {
    Map<String, Map<Integer, Long>> byTopic = new TreeMap<>();
    marks.forEach((tp, offset) -> byTopic.computeIfAbsent(tp.topic(), t -> new TreeMap<>()).put(tp.partition(), offset));
    String text = VERSION + byTopic.entrySet().stream()
        .map(e -> e.getKey() + ":" + e.getValue().entrySet().stream().map(p -> p.getKey() + "=" + p.getValue())
            .collect(Collectors.joining(",")))
        .collect(Collectors.joining(";"));
    if (text.length() > MAX_LENGTH) {
      throw new IllegalStateException("replay writes to too many partitions (" + marks.size() + ") to record its "
          + "progress safely; replay them in parts with --filter topic=NAME or use --to TOPIC");
    }
    return text;
  }

  /** The marks in a commit's metadata; empty for metadata some other tool wrote. */
  static Map<TopicPartition, Long> decode(String metadata) {
    Map<TopicPartition, Long> out = new java.util.HashMap<>();
    if (metadata == null || !metadata.startsWith(VERSION)) {
      return out;
    }
    String body = metadata.substring(VERSION.length());
    if (body.isEmpty()) {
      return out;
    }
    for (String topicPart : body.split(";")) {
      int colon = topicPart.lastIndexOf(':');
      String topic = topicPart.substring(0, colon);
      for (String p : topicPart.substring(colon + 1).split(",")) {
        int eq = p.indexOf('=');
        out.put(new TopicPartition(topic, Integer.parseInt(p.substring(0, eq))), Long.parseLong(p.substring(eq + 1)));
      }
    }
    return out;
  }
}
