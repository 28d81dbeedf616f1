package io.sluice.ops.dlq;

import static io.sluice.ops.dlq.DamagedHeadersTest.committed;
import static io.sluice.ops.dlq.DamagedHeadersTest.connectContext;
import static io.sluice.ops.dlq.DamagedHeadersTest.produce;
import static io.sluice.ops.dlq.DamagedHeadersTest.topic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.SharedKafka;
import io.sluice.ops.progress.Progress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two replays of one group at once, as two CLIs or two nodes' consoles would start them (each its own
 * {@link DeadLetterQueue}, as a process would have): one runs, the other is refused having changed nothing, and the
 * target holds every record once. On the shared broker.
 */
class ReplayLeaseTest {
  private static final int RECORDS = 10;

  @TempDir Path backups;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  private DeadLetterQueue node(String name) {
    return DeadLetterQueue.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .backupDir(backups.resolve(name)).build();
  }

  /** Ten dead letters bound for a topic of their own, in a group of their own. */
  private static ReplayRequest tenDeadLetters(String prefix) throws Exception {
    String dlqTopic = topic(prefix + "-dlq", 2);
    String target = topic(prefix + "-target", 1);
    List<byte[]> values = new ArrayList<>();
    List<Headers> headers = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      values.add(("v" + i).getBytes(StandardCharsets.UTF_8));
      headers.add(connectContext("orders", "0"));
    }
    produce(dlqTopic, values, headers);
    return ReplayRequest.of(dlqTopic).withTarget(new ReplayTarget.Topic(target))
        .withGroup(SharedKafka.unique(prefix + "-group"));
  }

  private static String target(ReplayRequest request) {
    return ((ReplayTarget.Topic) request.target()).name();
  }

  /** The values in the target, sorted: each dead letter once. */
  private static List<String> delivered(ReplayRequest request) {
    return SharedKafka.readAll(target(request)).stream().map(ConsumerRecord::value)
        .map(v -> new String(v, StandardCharsets.UTF_8)).sorted().toList();
  }

  private static List<String> everyValueOnce() {
    List<String> all = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      all.add("v" + i);
    }
    return all;
  }

  private long files(String node) throws IOException {
    Path dir = backups.resolve(node);
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      return all.filter(Files::isRegularFile).count();
    }
  }

  private static int leaseMembers(String group) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      String lease = ReplayLease.groupOf(group);
      return admin.describeConsumerGroups(List.of(lease)).describedGroups().get(lease).get().members().size();
    }
  }

  /**
   * A progress that holds the replay at its start: after it took the lease and saved the group's offsets, before it
   * read a record.
   */
  private static final class Held implements Progress {
    final CountDownLatch holding = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void update(long done, long total) {
      holding.countDown();
      try {
        release.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void aSecondRunOfTheGroupIsRefusedAndChangesNothingWhileTheFirstRuns() throws Exception {
    ReplayRequest request = tenDeadLetters("lease");
    DeadLetterQueue first = node("first");
    DeadLetterQueue second = node("second");
    Held held = new Held();
    Future<ReplayResult> running = threads.submit(() -> first.replay(request, held));
    assertTrue(held.holding.await(60, TimeUnit.SECONDS), "the first run started");

    ReplayRunning refused = assertThrows(ReplayRunning.class, () -> second.replay(request, Progress.NONE));
    assertEquals(request.group(), refused.group());
    assertEquals("sluice-dlq-replay-" + ProcessHandle.current().pid(), refused.clientId());
    assertNotNull(refused.host());
    assertTrue(refused.getMessage().contains("another replay in group " + request.group() + " is running (client "
        + refused.clientId() + " on " + refused.host() + ")") && refused.getMessage().contains("within 10 s"),
        refused.getMessage());
    assertEquals(0, files("second"), "the refused run saved no offsets");
    assertEquals(Map.of(), committed(request.group()), "nothing committed in the group");
    assertEquals(List.of(), delivered(request), "nothing produced");

    // A dry run produces and commits nothing, so it needs no lease; another group is another replay.
    assertEquals(RECORDS, second.replay(request.withDryRun(true), Progress.NONE).replayed());
    ReplayRequest elsewhere = request.withGroup(request.group() + "-other")
        .withTarget(new ReplayTarget.Topic(topic("lease-other-target", 1)));
    assertEquals(RECORDS, second.replay(elsewhere, Progress.NONE).replayed(), "another group runs beside it");
    assertEquals(everyValueOnce(), delivered(elsewhere));

    held.release.countDown();
    assertEquals(RECORDS, running.get(60, TimeUnit.SECONDS).replayed());
    assertEquals(everyValueOnce(), delivered(request), "each record once");
    assertEquals(0, leaseMembers(request.group()), "the ended run left the lease group");
    assertEquals(Map.of(), committed(ReplayLease.groupOf(request.group())), "the lease commits nothing");
    ReplayResult after = second.replay(request, Progress.NONE);
    assertEquals(0, after.replayed(), "the group is free again, and has nothing left");
    assertEquals(everyValueOnce(), delivered(request));
  }

  /**
   * Runs that start together may both find the lease group empty and both join: the one whose member id sorts first
   * goes on, the others leave. Several rounds, so that both ways of meeting (one joined before the other looked, or
   * both joined before either looked again) are likely to be met.
   */
  @Test
  void runsStartedAtOnceLetExactlyOneThrough() throws Exception {
    for (int round = 0; round < 3; round++) {
      ReplayRequest request = tenDeadLetters("lease-race");
      List<DeadLetterQueue> nodes = List.of(node("a"), node("b"), node("c"));
      CyclicBarrier together = new CyclicBarrier(nodes.size());
      CountDownLatch allAsked = new CountDownLatch(nodes.size());
      List<Future<ReplayClaim>> asked = new ArrayList<>();
      for (DeadLetterQueue n : nodes) {
        asked.add(threads.submit(() -> {
          together.await(30, TimeUnit.SECONDS);
          try {
            return n.claim(request);
          } finally {
            allAsked.countDown();
          }
        }));
      }
      assertTrue(allAsked.await(90, TimeUnit.SECONDS));
      List<ReplayClaim> claims = new ArrayList<>();
      int refused = 0;
      for (Future<ReplayClaim> f : asked) {
        try {
          claims.add(f.get());
        } catch (java.util.concurrent.ExecutionException e) {
          assertTrue(e.getCause() instanceof ReplayRunning, e.getCause().toString());
          refused++;
        }
      }
      assertEquals(1, claims.size(), "round " + round + ": exactly one run goes on");
      assertEquals(nodes.size() - 1, refused);
      assertEquals(Map.of(), committed(request.group()), "the refused runs committed nothing");
      assertEquals(RECORDS, claims.get(0).replay(Progress.NONE).replayed());
      assertEquals(everyValueOnce(), delivered(request), "each record once");
      assertEquals(0, leaseMembers(request.group()));
    }
  }

  /** A run that stops on an exception (here the simulated crash) gives the group back as it unwinds. */
  @Test
  void aCrashedRunGivesTheGroupBackAndTheNextResumesWithoutDuplicates() throws Exception {
    ReplayRequest request = tenDeadLetters("lease-crash");
    DeadLetterQueue first = node("crashing");
    assertThrows(Replayer.SimulatedCrash.class, () -> first.replayer().crashAfter(4).run(request, Progress.NONE));
    assertEquals(0, leaseMembers(request.group()), "the crashed run left the lease group");
    ReplayResult resumed = node("next").replay(request, Progress.NONE);
    assertEquals(RECORDS - 4, resumed.replayed() + 0L);
    assertEquals(4, resumed.alreadyDelivered());
    assertEquals(everyValueOnce(), delivered(request), "each record once");
  }

  /** A claim given back without running (the console could not start its job) frees the group at once. */
  @Test
  void aClaimClosedUnusedFreesTheGroup() throws Exception {
    ReplayRequest request = tenDeadLetters("lease-unused");
    try (ReplayClaim claim = node("a").claim(request)) {
      assertThrows(ReplayRunning.class, () -> node("b").claim(request));
      assertEquals(1, leaseMembers(request.group()));
    }
    assertEquals(RECORDS, node("b").replay(request, Progress.NONE).replayed());
  }
}
