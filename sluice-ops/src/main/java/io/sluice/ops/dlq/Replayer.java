package io.sluice.ops.dlq;

import io.sluice.connect.offsets.GroupOffsetsBackup;
import io.sluice.ops.progress.Progress;
import io.sluice.topics.BoundedRead;
import io.sluice.topics.KafkaCluster;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces the originals of dead-letter records back, exactly once across interruptions.
 *
 * <p>How progress survives a stop at any moment:
 * <ol>
 *   <li>The replay group's offsets are committed only after {@code flush()} returned and no send failed: a committed
 *       offset never runs ahead of what the target topics acknowledged, so a resume never skips (no gaps).</li>
 *   <li>The producer is idempotent ({@code enable.idempotence}, {@code acks=all}): its own retries add no copies.</li>
 *   <li>The crash window, a stop after some records were acknowledged but before their offsets were committed, is
 *       closed by the commit metadata ({@link TargetMarks}): it records, for every partition replay writes to, an
 *       offset below which nothing uncommitted can lie. A resuming run first reads each target partition from its
 *       mark to its end and collects the replay marks ({@link ReplayMark}) of this dead-letter topic and group; the
 *       dead-letter records found there are delivered already and are skipped (no duplicates).</li>
 * </ol>
 * Two runs with the same group at the same time would both resume from the same commit and produce the same records:
 * a run first takes the group's {@link ReplayLease}, before it reads the group's offsets or writes their backup, so
 * a second run anywhere on the cluster is refused ({@link ReplayRunning}) having changed nothing. A dry run takes no
 * lease: it produces and commits nothing, so beside a real run it can only count what that run may take first.
 */
final class Replayer {
  private static final long CHECKPOINT_RECORDS = 200_000;
  private static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(3);

  private final Map<String, Object> clientProperties;
  private final Map<String, Object> producerOverrides;
  private final Unwrapper unwrapper;
  private final Clock clock;
  private final Path backupDir;
  /** Test hook: after this many sends, flush and stop as a crash would, before committing them. */
  private long crashAfter = -1;

  /** @param backupDir where the group's offsets are saved before a replay moves them; null for no backup */
  Replayer(Map<String, Object> clientProperties, Map<String, Object> producerOverrides, Unwrapper unwrapper,
           Clock clock, Path backupDir) {
    this.backupDir = backupDir;
    this.clientProperties = clientProperties;
    this.producerOverrides = producerOverrides;
    this.unwrapper = unwrapper;
    this.clock = clock;
  }

  Replayer crashAfter(long sends) {
    this.crashAfter = sends;
    return this;
  }

  /** Producer settings for throughput: big lz4 batches, idempotent; overrides win. */
  Map<String, Object> producerConfig() {
    Map<String, Object> p = new HashMap<>(clientProperties);
    p.put("enable.idempotence", "true");
    p.put("acks", "all");
    p.put("max.in.flight.requests.per.connection", "5");
    p.put("compression.type", "lz4");
    p.put("linger.ms", "10");
    p.put("batch.size", String.valueOf(512 * 1024));
    p.put("buffer.memory", String.valueOf(128L * 1024 * 1024));
    p.put("max.request.size", String.valueOf(8 * 1024 * 1024));
    p.putIfAbsent("client.id", "sluice-dlq-replay");
    p.putAll(producerOverrides);
    return p;
  }

  Map<String, Object> consumerConfig(String group) {
    Map<String, Object> c = new HashMap<>(clientProperties);
    c.putAll(KafkaCluster.READ_COMMITTED);
    c.put("group.id", group);
    c.put("enable.auto.commit", "false");
    c.put("allow.auto.create.topics", "false");
    c.put("auto.offset.reset", "earliest");
    c.put("max.poll.records", "20000");
    c.put("fetch.max.bytes", String.valueOf(64 * 1024 * 1024));
    c.put("max.partition.fetch.bytes", String.valueOf(16 * 1024 * 1024));
    c.put("fetch.min.bytes", "1");
    c.put("receive.buffer.bytes", String.valueOf(1024 * 1024));
    c.put("check.crcs", "false");
    c.putIfAbsent("client.id", "sluice-dlq-replay");
    return c;
  }

  /** Takes the group's lease (see the class comment), runs, and gives the lease back however the run ends. */
  ReplayResult run(ReplayRequest request, Progress progress) {
    try (ReplayLease lease = lease(request)) {
      return run(request, progress, lease);
    }
  }

  /** The lease a run of {@code request} needs, taken; null for a dry run. */
  ReplayLease lease(ReplayRequest request) {
    return request.dryRun() ? null : ReplayLease.acquire(clientProperties, request.topic(), request.group());
  }

  /** @param lease held by the caller for {@code request}'s group (null for a dry run), and closed by it */
  ReplayResult run(ReplayRequest request, Progress progress, ReplayLease lease) {
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig(request.group()),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      Run run = new Run(request, consumer, progress, lease);
      try {
        return run.execute();
      } finally {
        run.close();
        progress.finish();
      }
    }
  }

  /** What the {@link #crashAfter} hook throws. */
  static final class SimulatedCrash extends RuntimeException {
    SimulatedCrash() {
      super("simulated crash after the records were acknowledged, before their offsets were committed");
    }
  }

  /** The state of one replay, and where its read of the dead-letter topic goes. */
  private final class Run implements BoundedRead.Sink<byte[], byte[]> {
    private final ReplayRequest request;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Progress progress;
    private final ReplayLease lease;
    private final Pacer pacer;
    private KafkaProducer<byte[], byte[]> producer;
    private final Map<TopicPartition, Long> stopAt = new HashMap<>();
    private final Map<TopicPartition, Long> position = new HashMap<>();
    private final Map<Integer, Long> resumedFrom = new TreeMap<>();
    private final Map<TopicPartition, Long> marks = new HashMap<>();
    private final Set<String> markedTopics = new HashSet<>();
    private final Map<String, Integer> partitionCounts = new HashMap<>();
    private final Set<String> missingTopics = new HashSet<>();
    private final Map<Integer, Set<Long>> delivered = new HashMap<>();
    private final Map<String, Long> perTarget = new TreeMap<>();
    private final Map<TopicPartition, Long> committed = new HashMap<>();
    private final AtomicReference<Exception> sendFailure = new AtomicReference<>();
    private long replayed;
    private long skippedReplayed;
    private long skippedFiltered;
    private long unroutable;
    private long alreadyDelivered;
    private long sinceCheckpoint;
    private long lastCheckpointNanos = System.nanoTime();
    private final byte[] markTopicBytes;
    private final byte[] markGroupBytes;
    private final Map<Integer, byte[]> markPartitionBytes = new HashMap<>();
    /**
     * The replay time of the records of one poll: the same to the millisecond, so formatted once per poll, by its
     * first send (null between polls).
     */
    private byte[] markTimeBytes;
    private long total;
    private long done;
    private boolean limitReached;
    private long sent;
    private final AtomicLong acknowledged = new AtomicLong();
    private final Callback onSent = (metadata, exception) -> {
      if (exception != null) {
        sendFailure.compareAndSet(null, exception);
      } else {
        acknowledged.incrementAndGet();
      }
    };

    Run(ReplayRequest request, KafkaConsumer<byte[], byte[]> consumer, Progress progress, ReplayLease lease) {
      this.request = request;
      this.consumer = consumer;
      this.progress = progress;
      this.lease = lease;
      this.pacer = Pacer.system(request.ratePerSecond());
      this.markTopicBytes = request.topic().getBytes(StandardCharsets.UTF_8);
      this.markGroupBytes = request.group().getBytes(StandardCharsets.UTF_8);
    }

    ReplayResult execute() {
      List<TopicPartition> tps = DlqReader.partitions(consumer, request.topic());
      if (request.target() instanceof ReplayTarget.Topic named) {
        List<PartitionInfo> target = consumer.partitionsFor(named.name(), Duration.ofSeconds(30));
        if (target == null || target.isEmpty()) {
          throw new IllegalArgumentException("target topic " + named.name() + " does not exist; create it first");
        }
      }
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(tps);
      stopAt.putAll(consumer.endOffsets(tps));
      Map<TopicPartition, OffsetAndMetadata> groupOffsets = consumer.committed(new HashSet<>(tps));
      for (TopicPartition tp : tps) {
        OffsetAndMetadata c = groupOffsets.get(tp);
        // A committed offset below the log start means retention removed records: start at what is left.
        long start = c == null ? begin.get(tp) : Math.max(c.offset(), begin.get(tp));
        position.put(tp, start);
        committed.put(tp, start);
        resumedFrom.put(tp.partition(), start);
        if (c != null) {
          try {
            TargetMarks.decode(c.metadata()).forEach(marks::putIfAbsent);
          } catch (IllegalArgumentException unreadable) {
            throw new IllegalStateException("group " + request.group() + "'s commit on " + tp + " cannot be resumed: "
                + unreadable.getMessage() + ". Without them replay cannot find the records an interrupted run"
                + " delivered after that commit, and would produce them twice; nothing was replayed. Look at what the"
                + " target topics received since, then move the group's offsets past what was delivered"
                + " (kafka-consumer-groups --reset-offsets, which writes no marks)", unreadable);
          }
        }
      }
      marks.keySet().forEach(tp -> markedTopics.add(tp.topic()));
      Path backup = request.dryRun() || backupDir == null ? null : backup(tps);
      if (!marks.isEmpty()) {
        recoverDelivered();
      }
      for (TopicPartition tp : tps) {
        total += Math.max(0, stopAt.get(tp) - position.get(tp));
      }
      if (!request.dryRun()) {
        producer = new KafkaProducer<>(producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
      }
      progress.update(0, total);
      lastCheckpointNanos = System.nanoTime();
      BoundedRead.read(consumer, Map.copyOf(position), stopAt, Duration.ofMillis(500), this);
      if (!request.dryRun()) {
        // Nothing is uncommitted after the last checkpoint: the marks are dropped, so that the next run does not scan
        // whatever the target topics received in between. Only a run that stopped without this commit leaves marks.
        checkpoint(true);
        verify(tps);
      }
      Map<Integer, Long> end = new TreeMap<>();
      position.forEach((tp, o) -> end.put(tp.partition(), o));
      return new ReplayResult(request.topic(), request.group(), request.dryRun(), replayed, skippedReplayed,
          skippedFiltered, unroutable, alreadyDelivered, perTarget, resumedFrom, end, !limitReached,
          backup == null ? null : backup.toString());
    }

    /** A record of the dead-letter topic, below where this run stops; false once the limit is reached, before it. */
    @Override
    public boolean take(ConsumerRecord<byte[], byte[]> r) {
      if (request.limit() != null && replayed >= request.limit()) {
        limitReached = true;
        return false;
      }
      handle(r);
      position.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
      done++;
      return true;
    }

    @Override
    public void finished(TopicPartition tp) {
      // Offsets below the end without records (transaction markers, compaction) count as passed.
      position.put(tp, stopAt.get(tp));
    }

    /** Between polls: the progress, and a checkpoint when enough records or time have passed since the last. */
    @Override
    public boolean afterPoll(int records, boolean more) {
      if (lease != null) {
        lease.check();
      }
      markTimeBytes = null;
      progress.update(done, total);
      if (!request.dryRun() && (sinceCheckpoint >= CHECKPOINT_RECORDS
          || System.nanoTime() - lastCheckpointNanos >= CHECKPOINT_INTERVAL.toNanos())) {
        checkpoint(false);
      }
      return true;
    }

    /**
     * Saves where the group stood, in the CSV {@code kafka-consumer-groups --reset-offsets --from-file} reads
     * ({@code topic,partition,offset}), so the replay's commits can be undone with standard tooling.
     */
    private Path backup(List<TopicPartition> tps) {
      Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
      tps.forEach(tp -> offsets.put(tp, committed.get(tp)));
      try {
        return new GroupOffsetsBackup(backupDir, clock).write(request.group(), null, request.group(), null, offsets);
      } catch (UncheckedIOException e) {
        throw new IllegalStateException(e.getMessage() + ": " + e.getCause().getMessage() + "; nothing was replayed",
            e);
      }
    }

    /** After the last commit: every send acknowledged, and the group's offsets read back as committed. */
    private void verify(List<TopicPartition> tps) {
      if (acknowledged.get() != sent) {
        throw new IllegalStateException("sent " + sent + " record(s) but " + acknowledged.get()
            + " were acknowledged");
      }
      Map<TopicPartition, OffsetAndMetadata> readBack = consumer.committed(new HashSet<>(tps));
      for (TopicPartition tp : tps) {
        OffsetAndMetadata c = readBack.get(tp);
        if (c == null || c.offset() != position.get(tp)) {
          throw new IllegalStateException("group " + request.group() + " reads back offset "
              + (c == null ? "none" : c.offset()) + " for " + tp + ", expected " + position.get(tp));
        }
      }
    }

    /**
     * Decides about one record and sends it. The common case (no filter) reads only the few headers it needs
     * instead of decoding all of them: at tens of thousands of records a second the stack-trace header alone would
     * cost more than the send.
     */
    private void handle(ConsumerRecord<byte[], byte[]> r) {
      Set<Long> done = delivered.get(r.partition());
      if (done != null && done.remove(r.offset())) {
        alreadyDelivered++;
        return;
      }
      if (!request.chosen(r.partition(), r.offset())) {
        skippedFiltered++;
        return;
      }
      Headers in = r.headers();
      if (!request.includeReplayed() && ReplayMark.present(in)) {
        skippedReplayed++;
        return;
      }
      DlqRecord record = null;
      if (!request.filter().conditions().isEmpty()) {
        record = DlqRecord.of(r);
        if (!request.filter().matches(record)) {
          skippedFiltered++;
          return;
        }
      }
      String topic;
      Integer partition;
      if (request.target() instanceof ReplayTarget.Topic named) {
        topic = named.name();
        partition = null;
      } else {
        topic = ErrorContext.text(in, ErrorContext.TOPIC);
        try {
          partition = ErrorContext.integer(in, ErrorContext.PARTITION);
        } catch (IllegalArgumentException e) {
          throw new IllegalStateException("dead-letter record " + r.topic() + "[" + r.partition() + "]@" + r.offset()
              + ": " + e.getMessage() + ", so its original partition is unknown and replay to the original topic"
              + " stops here (progress up to the last commit is kept). Replay it to a named topic (--target TOPIC)"
              + " or fix the header");
        }
      }
      if (topic == null || (!request.dryRun() && !markTopic(topic))) {
        unroutable++;
        return;
      }
      if (partition != null && partition >= partitionCounts.getOrDefault(topic, Integer.MAX_VALUE)) {
        partition = null;
      }
      perTarget.merge(topic, 1L, Long::sum);
      replayed++;
      if (request.dryRun()) {
        return;
      }
      RecordHeaders headers = new RecordHeaders();
      boolean fromConnect = false;
      for (Header h : in) {
        String key = h.key();
        if (key.startsWith(ErrorContext.PREFIX)) {
          fromConnect = true;
        } else if (!key.startsWith(ReplayMark.PREFIX)) {
          headers.add(h);
        }
      }
      headers.add(ReplayMark.TOPIC, markTopicBytes);
      headers.add(ReplayMark.PARTITION, markPartitionBytes.computeIfAbsent(r.partition(),
          p -> Integer.toString(p).getBytes(StandardCharsets.UTF_8)));
      headers.add(ReplayMark.OFFSET, Long.toString(r.offset()).getBytes(StandardCharsets.UTF_8));
      if (markTimeBytes == null) {
        markTimeBytes = clock.instant().toString().getBytes(StandardCharsets.UTF_8);
      }
      headers.add(ReplayMark.TIME, markTimeBytes);
      headers.add(ReplayMark.GROUP, markGroupBytes);
      byte[] value = fromConnect ? r.value() : unwrapper.original(record == null ? DlqRecord.of(r) : record);
      pacer.acquire();
      producer.send(new ProducerRecord<>(topic, partition, null, r.key(), value, headers), onSent);
      sent++;
      sinceCheckpoint++;
      if (replayed == crashAfter) {
        producer.flush();
        throw new SimulatedCrash();
      }
    }

    /**
     * Before the first record goes to a topic, records a mark for each of its partitions and commits it, so that a
     * crash after that send still finds the record. False when the topic does not exist.
     */
    private boolean markTopic(String topic) {
      if (markedTopics.contains(topic) && partitionCounts.containsKey(topic)) {
        return true;
      }
      if (missingTopics.contains(topic)) {
        return false;
      }
      List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
      if (infos == null || infos.isEmpty()) {
        missingTopics.add(topic);
        return false;
      }
      partitionCounts.put(topic, infos.size());
      if (markedTopics.add(topic)) {
        List<TopicPartition> tps = infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
        consumer.endOffsets(tps).forEach(marks::putIfAbsent);
        commit(committed);
      }
      return true;
    }

    /**
     * Flushes, then commits what the targets acknowledged, with marks moved up to the targets' current ends (or
     * dropped, at the {@code last} checkpoint).
     */
    private void checkpoint(boolean last) {
      producer.flush();
      Exception failure = sendFailure.get();
      if (failure != null) {
        throw new IllegalStateException("producing to the target failed: " + failure.getMessage()
            + "; progress up to the last commit is kept, run the replay again to resume", failure);
      }
      if (last) {
        marks.clear();
        markedTopics.clear();
      } else if (!marks.isEmpty()) {
        marks.putAll(consumer.endOffsets(List.copyOf(marks.keySet())));
      }
      commit(position);
      sinceCheckpoint = 0;
      lastCheckpointNanos = System.nanoTime();
    }

    private void commit(Map<TopicPartition, Long> offsets) {
      String metadata = TargetMarks.encode(marks);
      Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
      offsets.forEach((tp, o) -> commit.put(tp, new OffsetAndMetadata(o, metadata)));
      consumer.commitSync(commit);
      committed.putAll(offsets);
    }

    /** Collects dead-letter offsets a crashed run delivered after its last commit (see the class comment). */
    private void recoverDelivered() {
      DlqReader reader = new DlqReader(clientProperties);
      try (KafkaConsumer<byte[], byte[]> scanner = reader.consumer()) {
        Map<TopicPartition, Long> end = scanner.endOffsets(List.copyOf(marks.keySet()));
        DlqReader.scan(scanner, marks, end, Duration.ofSeconds(30), r -> {
          ReplayMark mark = ownMark(r);
          if (mark != null) {
            Long from = resumedFrom.get(mark.partition());
            if (from != null && mark.offset() >= from) {
              delivered.computeIfAbsent(mark.partition(), p -> new HashSet<>()).add(mark.offset());
            }
          }
          return true;
        });
      }
    }

    /**
     * The mark of a record in a target partition when this replay (its dead-letter topic and group) wrote it, else
     * null. A damaged mark that may be this replay's refuses the run: it may be a record the interrupted run
     * delivered, and resuming without it would produce that record twice.
     */
    private ReplayMark ownMark(DlqRecord r) {
      try {
        ReplayMark mark = ReplayMark.from(r.headers());
        return mark != null && request.topic().equals(mark.topic()) && request.group().equals(mark.group()) ? mark
            : null;
      } catch (IllegalArgumentException damaged) {
        String topic = ErrorContext.text(r.headers(), ReplayMark.TOPIC);
        String group = ErrorContext.text(r.headers(), ReplayMark.GROUP);
        if ((topic != null && !topic.equals(request.topic())) || (group != null && !group.equals(request.group()))) {
          return null;
        }
        throw new IllegalStateException("record " + r.topic() + "[" + r.partition() + "]@" + r.offset() + ", written"
            + " after group " + request.group() + "'s last commit, carries a " + damaged.getMessage() + ": it may be a"
            + " record of " + request.topic() + " this group replayed before it stopped, so replay refuses to resume"
            + " rather than produce it twice; nothing was replayed. Look at that record and what the target holds,"
            + " then move the group's offsets past what was delivered (kafka-consumer-groups --reset-offsets)");
      }
    }

    void close() {
      if (producer != null) {
        producer.close(Duration.ofSeconds(30));
      }
    }
  }
}
