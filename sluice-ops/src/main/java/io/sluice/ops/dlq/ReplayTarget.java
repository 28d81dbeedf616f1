package io.sluice.ops.dlq;

/** Where {@code replay} produces: back to each record's original topic and partition, or to one named topic. */
public sealed interface ReplayTarget {
  /** The topic and partition named in each record's {@code __connect.errors.topic} / {@code .partition} headers. */
  record Original() implements ReplayTarget {}

  /** One topic for every record, partitioned by key as any producer would. */
  record Topic(String name) implements ReplayTarget {}

  /** {@code original} or a topic name. */
  static ReplayTarget parse(String text) {
    if (text == null || text.isBlank() || "original".equals(text)) {
      return new Original();
    }
    if (!text.matches("[a-zA-Z0-9._-]{1,249}")) {
      throw new IllegalArgumentException("'" + text + "' is not a valid topic name");
    }
    return new Topic(text);
  }
}
