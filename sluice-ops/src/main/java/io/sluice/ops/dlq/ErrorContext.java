package io.sluice.ops.dlq;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * What Kafka Connect wrote about a failure into a dead-letter record's {@code __connect.errors.*} headers (sink
 * connectors with {@code errors.deadletterqueue.context.headers.enable=true}). Every field is null when its header is
 * absent; Connect writes all of them as UTF-8 text, numbers included. A number header that does not hold a number
 * (the record was not written by Connect, or was changed since) leaves its field null and says so in {@code
 * problems}, so that no one reads it as "absent".
 *
 * @param topic the topic the failed record was read from
 * @param partition its partition there
 * @param offset its offset there
 * @param connector the sink connector that failed on it
 * @param taskId the task of that connector
 * @param stage where it failed: {@code KEY_CONVERTER}, {@code VALUE_CONVERTER}, {@code HEADER_CONVERTER},
 *     {@code TRANSFORMATION}, {@code TASK_PUT}, ...
 * @param executingClass the converter, transformation or task class that threw
 * @param exceptionClass the exception's class name
 * @param exceptionMessage the exception's message
 * @param stacktrace the exception's stack trace
 * @param problems the headers that could not be read, each with its value, e.g. {@code __connect.errors.partition is
 *     'two', not a number}; empty when all could
 */
public record ErrorContext(String topic, Integer partition, Long offset, String connector, Integer taskId,
                           String stage, String executingClass, String exceptionClass, String exceptionMessage,
                           String stacktrace, List<String> problems) {
  public static final String PREFIX = "__connect.errors.";
  public static final String TOPIC = PREFIX + "topic";
  public static final String PARTITION = PREFIX + "partition";
  public static final String OFFSET = PREFIX + "offset";
  public static final String CONNECTOR = PREFIX + "connector.name";
  public static final String TASK = PREFIX + "task.id";
  public static final String STAGE = PREFIX + "stage";
  public static final String CLASS = PREFIX + "class.name";
  public static final String EXCEPTION = PREFIX + "exception.class.name";
  public static final String MESSAGE = PREFIX + "exception.message";
  public static final String STACKTRACE = PREFIX + "exception.stacktrace";

  /** The context of a record's headers; a record without any {@code __connect.errors.*} header gets all nulls. */
  public static ErrorContext from(Headers headers) {
    List<String> problems = new ArrayList<>();
    Integer partition = readable(() -> integer(headers, PARTITION), problems);
    Long offset = readable(() -> number(headers, OFFSET), problems);
    Integer task = readable(() -> integer(headers, TASK), problems);
    return new ErrorContext(text(headers, TOPIC), partition, offset, text(headers, CONNECTOR), task,
        text(headers, STAGE), text(headers, CLASS), text(headers, EXCEPTION), text(headers, MESSAGE),
        text(headers, STACKTRACE), List.copyOf(problems));
  }

  private static <T> T readable(Supplier<T> read, List<String> problems) {
    try {
      return read.get();
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
      return null;
    }
  }

  /** Whether Connect wrote any context at all (it does so only with context headers enabled). */
  public boolean present() {
    return topic != null || stage != null || exceptionClass != null || connector != null;
  }

  /** The exception class without its package, for grouping and display. */
  public String exceptionSimpleName() {
    if (exceptionClass == null) {
      return null;
    }
    return exceptionClass.substring(exceptionClass.lastIndexOf('.') + 1);
  }

  static String text(Headers headers, String name) {
    // The last header of a name wins: a record replayed and failed again carries the newest context last.
    Header h = headers.lastHeader(name);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /**
   * The header as a whole number, null where it is absent.
   *
   * @throws IllegalArgumentException naming the header and its value where it holds anything else
   */
  static Integer integer(Headers headers, String name) {
    Long n = number(headers, name);
    if (n != null && n != n.intValue()) {
      throw new IllegalArgumentException(name + " is '" + n + "', out of range");
    }
    return n == null ? null : n.intValue();
  }

  private static Long number(Headers headers, String name) {
    String s = text(headers, name);
    if (s == null) {
      return null;
    }
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " is '" + s + "', not a number");
    }
  }
}
