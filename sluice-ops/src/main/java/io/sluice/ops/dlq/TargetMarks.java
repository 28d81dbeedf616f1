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
  /** What every version's metadata begins with. */
  private static final String FAMILY = "sluice-dlq-replay/";
  private static final String VERSION = FAMILY + "1 ";
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

  /**
   * The marks in a commit's metadata; none in metadata some other tool wrote ({@code kafka-consumer-groups} writes
   * none). Metadata of replay's that cannot be read (damaged, or of a format this version does not know) throws: read
   * as no marks, it would let a resumed replay skip its look for what the interrupted run delivered, and produce those
   * records twice.
   *
   * @throws IllegalArgumentException when the metadata is replay's and cannot be read, saying why
   */
  static Map<TopicPartition, Long> decode(String metadata) {
    Map<TopicPartition, Long> out = new java.util.HashMap<>();
    if (metadata == null || !metadata.startsWith(FAMILY)) {
      return out;
    }
    if (!metadata.startsWith(VERSION)) {
      throw new IllegalArgumentException("its replay marks '" + shorten(metadata) + "' are of a format this version"
          + " of Sluice does not read (it reads " + VERSION.strip() + ")");
    }
    String body = metadata.substring(VERSION.length());
    if (body.isEmpty()) {
      return out;
    }
    for (String topicPart : body.split(";", -1)) {
      int colon = topicPart.lastIndexOf(':');
      if (colon <= 0) {
        throw damaged(metadata, "'" + shorten(topicPart) + "' is not topic:partition=offset,...");
      }
      String topic = topicPart.substring(0, colon);
      for (String p : topicPart.substring(colon + 1).split(",", -1)) {
        int eq = p.indexOf('=');
        try {
          out.put(new TopicPartition(topic, Integer.parseInt(p.substring(0, Math.max(0, eq)))),
              Long.parseLong(p.substring(eq + 1)));
        } catch (NumberFormatException e) {
          throw damaged(metadata, "'" + shorten(p) + "' in " + topic + " is not partition=offset");
        }
      }
    }
    return out;
  }

  private static IllegalArgumentException damaged(String metadata, String why) {
    return new IllegalArgumentException("its replay marks '" + shorten(metadata) + "' are damaged: " + why);
  }

  private static String shorten(String s) {
    return s.length() <= 200 ? s : s.substring(0, 199) + "…";
  }
}
