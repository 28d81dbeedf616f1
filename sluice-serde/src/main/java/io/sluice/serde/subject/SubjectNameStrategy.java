package io.sluice.serde.subject;

import java.util.Locale;

/**
 * Which subject a record's schema is registered under, as Confluent's strategies name it: {@code <topic>-key} /
 * {@code <topic>-value} (one record type per topic), the record's full name (several types per topic, one subject per
 * type across topics), or {@code <topic>-<full name>}. The record name is Avro's full name, Protobuf's first message's
 * full name, JSON Schema's {@code title}.
 */
public sealed interface SubjectNameStrategy {
  String subject(String topic, boolean isKey, String recordName);

  /** {@code <topic>-key} or {@code <topic>-value}. */
  record TopicName() implements SubjectNameStrategy {
    @Override
    public String subject(String topic, boolean isKey, String recordName) {
      return topic + (isKey ? "-key" : "-value");
    }
  }

  /** The record's full name. */
  record RecordName() implements SubjectNameStrategy {
    @Override
    public String subject(String topic, boolean isKey, String recordName) {
      return requireName(recordName);
    }
  }

  /** {@code <topic>-<record full name>}. */
  record TopicRecordName() implements SubjectNameStrategy {
    @Override
    public String subject(String topic, boolean isKey, String recordName) {
      return topic + "-" + requireName(recordName);
    }
  }

  private static String requireName(String recordName) {
    if (recordName == null || recordName.isEmpty()) {
      throw new IllegalArgumentException("this subject name strategy needs a named record (Avro record, Protobuf "
          + "message, JSON Schema with a title)");
    }
    return recordName;
  }

  /**
   * The strategy a {@code key.subject.name.strategy} / {@code value.subject.name.strategy} value names: Confluent's
   * class names ({@code io.confluent.kafka.serializers.subject.TopicNameStrategy}), their simple names, or null for
   * the default, TopicNameStrategy.
   */
  static SubjectNameStrategy named(String value) {
    if (value == null || value.isBlank()) {
      return new TopicName();
    }
    String simple = value.substring(value.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    return switch (simple) {
      case "topicnamestrategy" -> new TopicName();
      case "recordnamestrategy" -> new RecordName();
      case "topicrecordnamestrategy" -> new TopicRecordName();
      default -> throw new IllegalArgumentException("unknown subject name strategy " + value
          + " (TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy)");
    };
  }
}
