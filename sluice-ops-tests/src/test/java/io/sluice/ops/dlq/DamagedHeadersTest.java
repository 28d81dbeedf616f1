package io.sluice.ops.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.ops.progress.Progress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Dead-letter records whose headers were damaged (written by another tool, or changed since): nothing reads a damaged
 * header as absent where that could lose, misplace or duplicate a record. On the shared broker.
 */
class DamagedHeadersTest {
  private static final DeadLetterQueue DLQ = DeadLetterQueue.builder()
      .bootstrapServers(SharedKafka.bootstrapServers()).build();

  static Headers headers(String... pairs) {
    RecordHeaders h = new RecordHeaders();
    for (int i = 0; i < pairs.length; i += 2) {
      h.add(pairs[i], pairs[i + 1].getBytes(StandardCharsets.UTF_8));
    }
    return h;
  }

  static Headers connectContext(String topic, String partition) {
    return headers(ErrorContext.TOPIC, topic, ErrorContext.PARTITION, partition, ErrorContext.OFFSET, "7",
        ErrorContext.STAGE, "VALUE_CONVERTER", ErrorContext.EXCEPTION, "org.apache.kafka.connect.errors.DataException");
  }

  static String topic(String prefix, int partitions) throws Exception {
    String name = SharedKafka.unique(prefix);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }
    return name;
  }

  static void produce(String topic, List<byte[]> values, List<Headers> headers) {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
        Map.of("bootstrap.servers", SharedKafka.bootstrapServers()), new ByteArraySerializer(),
        new ByteArraySerializer());
        CheckedSends<byte[], byte[]> sends = CheckedSends.through(producer)) {
      for (int i = 0; i < values.size(); i++) {
        sends.send(new ProducerRecord<>(topic, 0, null, null, values.get(i), headers.get(i)));
      }
    }
  }

  @Test
  void aDamagedReplayMarkIsReplayedButUnreadableNeverNew() {
    assertNull(ReplayMark.from(headers("other", "x")), "no mark: never replayed");
    ReplayMark good = ReplayMark.from(headers(ReplayMark.TOPIC, "dlq", ReplayMark.PARTITION, "1",
        ReplayMark.OFFSET, "42", ReplayMark.TIME, "2026-01-01T00:00:00Z", ReplayMark.GROUP, "g"));
    assertEquals(new ReplayMark("dlq", 1, 42, java.time.Instant.parse("2026-01-01T00:00:00Z"), "g"), good);

    IllegalArgumentException notANumber = assertThrows(IllegalArgumentException.class, () -> ReplayMark.from(
        headers(ReplayMark.TOPIC, "dlq", ReplayMark.PARTITION, "one", ReplayMark.OFFSET, "42", ReplayMark.GROUP, "g")));
    assertEquals("damaged replay mark: __sluice.replay.partition is 'one'", notANumber.getMessage());
    Headers noTopic = headers(ReplayMark.PARTITION, "1", ReplayMark.OFFSET, "42", ReplayMark.GROUP, "g");
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> ReplayMark.from(noTopic));
    assertEquals("damaged replay mark: no __sluice.replay.topic header", missing.getMessage());

    DlqRecord record = new DlqRecord("dlq", 0, 3, java.time.Instant.EPOCH, null, null, noTopic,
        ErrorContext.from(noTopic), null, null);
    assertTrue(record.replayed(), "a damaged mark is still a mark: the record was replayed");
    assertEquals(missing.getMessage(), record.damagedMark());
  }

  /** A replay of ten dead letters to a topic of their own, interrupted after delivering four of them. */
  private static ReplayRequest interruptedAfterFour(String prefix) throws Exception {
    String dlqTopic = topic(prefix + "-dlq", 1);
    String target = topic(prefix + "-target", 1);
    List<byte[]> values = new ArrayList<>();
    List<Headers> headers = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      values.add(("v" + i).getBytes(StandardCharsets.UTF_8));
      headers.add(connectContext("orders", "0"));
    }
    produce(dlqTopic, values, headers);
    String group = SharedKafka.unique(prefix + "-group");
    ReplayRequest request = ReplayRequest.of(dlqTopic).withTarget(new ReplayTarget.Topic(target)).withGroup(group);
    assertThrows(Replayer.SimulatedCrash.class, () -> DLQ.replayer().crashAfter(4).run(request, Progress.NONE));
    assertEquals(4, SharedKafka.readAll(target).size(), "the interrupted run delivered 4");
    return request;
  }

  /**
   * A replay interrupted after some sends resumes by collecting the replay marks in its target after its last
   * commit. A damaged mark there may be one of its own deliveries: read as none, that record would be produced a
   * second time. The resume refuses, names the record, and produces nothing.
   */
  @Test
  void aDamagedMarkWhereAResumeLooksRefusesTheResumeRatherThanReplayTwice() throws Exception {
    ReplayRequest request = interruptedAfterFour("damaged");
    String dlqTopic = request.topic();
    String target = ((ReplayTarget.Topic) request.target()).name();
    String group = request.group();

    // A record whose mark names this replay's topic and group, its offset unreadable: which one was it?
    produce(target, List.of("v4".getBytes(StandardCharsets.UTF_8)), List.of(headers(ReplayMark.TOPIC, dlqTopic,
        ReplayMark.PARTITION, "0", ReplayMark.OFFSET, "four", ReplayMark.GROUP, group)));
    Map<TopicPartition, OffsetAndMetadata> committed = committed(group);
    IllegalStateException refused = assertThrows(IllegalStateException.class, () -> DLQ.replay(request,
        Progress.NONE));
    assertTrue(refused.getMessage().contains("record " + target + "[0]@4") && refused.getMessage().contains(
        "damaged replay mark: __sluice.replay.offset is 'four'") && refused.getMessage().contains("nothing was"
        + " replayed"), refused.getMessage());
    assertEquals(5, SharedKafka.readAll(target).size(), "the refused resume produced nothing");
    assertEquals(committed, committed(group), "the refused resume moved no offset");
  }

  /**
   * The marks a resume looks from live in the replay group's commit metadata. Metadata of replay's that cannot be
   * read (damaged, or written by a newer Sluice) read as none would skip that look: the resume refuses instead.
   */
  @Test
  void unreadableMarksInTheGroupsCommitRefuseTheResumeRatherThanReplayTwice() throws Exception {
    ReplayRequest request = interruptedAfterFour("damaged-marks");
    String dlqTopic = request.topic();
    String target = ((ReplayTarget.Topic) request.target()).name();
    String group = request.group();
    long at = committed(group).values().stream().mapToLong(OffsetAndMetadata::offset).findFirst().orElse(0);
    // As a newer Sluice might write them: read as no marks (as they were), the resume produced records 4.. again.
    String damaged = "sluice-dlq-replay/2 " + target + ":0=4";
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(dlqTopic, 0),
          new OffsetAndMetadata(at, damaged))).all().get();
    }
    Map<TopicPartition, OffsetAndMetadata> committed = committed(group);
    IllegalStateException refused = assertThrows(IllegalStateException.class, () -> DLQ.replay(request,
        Progress.NONE));
    assertTrue(refused.getMessage().contains("group " + group + "'s commit on " + dlqTopic + "-0 cannot be resumed")
        && refused.getMessage().contains("'" + damaged + "' are of a format this version of Sluice does not read")
        && refused.getMessage().contains("nothing was replayed"), refused.getMessage());
    assertEquals(4, SharedKafka.readAll(target).size(), "the refused resume produced nothing");
    assertEquals(committed, committed(group), "the refused resume moved no offset");
  }

  /** Replay to the original topic needs the original partition: an unreadable one refuses, it does not guess. */
  @Test
  void anUnreadableOriginalPartitionRefusesReplayToTheOriginalTopic() throws Exception {
    String original = topic("damaged-original", 3);
    String dlqTopic = topic("damaged-dlq", 1);
    Headers damaged = connectContext(original, "two");
    produce(dlqTopic, List.of("{\"id\":1}".getBytes(StandardCharsets.UTF_8)), List.of(damaged));

    ErrorContext context = ErrorContext.from(damaged);
    assertNull(context.partition());
    assertEquals(List.of("__connect.errors.partition is 'two', not a number"), context.problems());
    assertEquals(7L, context.offset());

    IllegalStateException refused = assertThrows(IllegalStateException.class, () -> DLQ.replay(
        ReplayRequest.of(dlqTopic).withGroup(SharedKafka.unique("damaged-original")), Progress.NONE));
    assertTrue(refused.getMessage().contains("__connect.errors.partition is 'two', not a number")
        && refused.getMessage().contains("--target"), refused.getMessage());
    assertEquals(0, SharedKafka.readAll(original).size(), "nothing went to a partition of the partitioner's choosing");
  }

  /** A registry that does not answer is a warning with its cause, not an empty subject list. */
  @Test
  void aRegistryFailureIsAWarningNotAnEmptySubjectList() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    String dlqTopic = topic("registry-down-dlq", 1);
    byte[] framed = ByteBuffer.allocate(7).put((byte) 0).putInt(5).put((byte) 2).put((byte) 'x').array();
    produce(dlqTopic, List.of(framed, framed), List.of(connectContext("orders", "0"), connectContext("orders", "0")));
    Inspection inspection = DeadLetterQueue.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .registryUrl("http://127.0.0.1:" + closed).build().inspect(dlqTopic, ReadOptions.all());
    assertEquals(2, inspection.records().size());
    assertEquals(5, inspection.records().get(0).valueSchemaId());
    assertEquals(1, inspection.warnings().size(), "asked once: " + inspection.warnings());
    String warning = inspection.warnings().get(0);
    assertTrue(warning.contains("schema id 5") && warning.contains("127.0.0.1:" + closed), warning);
  }

  static Map<TopicPartition, OffsetAndMetadata> committed(String group) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    }
  }
}
