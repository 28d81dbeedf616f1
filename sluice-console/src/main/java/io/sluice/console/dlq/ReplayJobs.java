package io.sluice.console.dlq;

import io.sluice.ops.dlq.ReplayResult;
import io.sluice.ops.dlq.ReplayRunning;
import io.sluice.ops.progress.Progress;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The replays the console started: each runs on a thread of its own beside the request that started it, and reports
 * how far it got, so that the page shows a percentage while a long replay runs and its result when it ends. Two replays
 * of one replay group at once are refused ({@link Busy}): here without asking Kafka, and a replay of the group that
 * runs elsewhere (a CLI, another node's console) by the group's lease, which the replay claims before its job starts.
 * The newest {@link #KEPT} jobs are kept, so memory does not grow with use.
 */
public final class ReplayJobs implements AutoCloseable {
  /** Finished jobs kept for their page; the oldest finished goes first. */
  static final int KEPT = 50;

  /** Where a replay is. */
  public enum State { RUNNING, DONE, FAILED }

  /**
   * A replay as the page shows it.
   *
   * @param done dead-letter records read so far
   * @param total records to read (the topic's end when the replay started, less where its group stood); -1 unknown
   * @param percent {@code done} of {@code total}, 0 to 100 (100 once done)
   * @param result what the replay did, once done
   * @param error why it failed, once failed
   */
  public record Status(String id, String topic, String group, String what, String user, Instant started,
      State state, long done, long total, int percent, ReplayResult result, String error) {}

  /** A replay of this group is running already: started from this console, or anywhere else. */
  public static final class Busy extends IllegalStateException {
    Busy(Status running) {
      super("a replay of " + running.topic() + " (" + running.what() + ") by " + running.user()
          + " is running in group " + running.group() + "; wait for it to end");
    }

    Busy(ReplayRunning elsewhere) {
      super(elsewhere.getMessage(), elsewhere);
    }
  }

  private final class Job implements Progress {
    final String id = UUID.randomUUID().toString();
    final String topic;
    final String group;
    final String what;
    final String user;
    final Instant started = clock.instant();
    volatile State state = State.RUNNING;
    volatile long done;
    volatile long total = -1;
    volatile ReplayResult result;
    volatile String error;

    Job(String topic, String group, String what, String user) {
      this.topic = topic;
      this.group = group;
      this.what = what;
      this.user = user;
    }

    @Override
    public void update(long done, long total) {
      this.done = done;
      this.total = total;
    }

    Status status() {
      long t = total;
      long d = done;
      int percent = state == State.DONE ? 100 : t <= 0 ? 0 : (int) Math.min(99, d * 100 / t);
      return new Status(id, topic, group, what, user, started, state, d, t, percent, result, error);
    }
  }

  private final Clock clock;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "sluice-console-replay");
    t.setDaemon(true);
    return t;
  });
  private final Map<String, Job> jobs = new LinkedHashMap<>();

  public ReplayJobs(Clock clock) {
    this.clock = clock;
  }

  /**
   * Starts {@code replay} for {@code group}, handing it the job as its progress.
   *
   * @throws Busy when a replay of {@code group} is running
   */
  public Status start(String topic, String group, String what, String user,
      Function<Progress, ReplayResult> replay) {
    return start(topic, group, what, user, () -> replay);
  }

  /**
   * Starts the replay that {@code claim} hands over once it holds the group (a {@link ReplayRunning} when another
   * run holds it); the claim is taken on the caller's thread, so that its refusal is the caller's {@link Busy}, and
   * outside this object's lock, as joining the group takes a moment.
   *
   * @throws Busy when a replay of {@code group} is running, here or elsewhere
   */
  public Status start(String topic, String group, String what, String user,
      Supplier<Function<Progress, ReplayResult>> claim) {
    Job job = reserve(topic, group, what, user);
    Function<Progress, ReplayResult> replay;
    try {
      replay = claim.get();
    } catch (ReplayRunning elsewhere) {
      forget(job);
      throw new Busy(elsewhere);
    } catch (RuntimeException e) {
      failed(job, e);
      return job.status();
    }
    threads.execute(() -> {
      try {
        job.result = replay.apply(job);
        job.state = State.DONE;
      } catch (RuntimeException e) {
        failed(job, e);
      }
    });
    return job.status();
  }

  private static void failed(Job job, RuntimeException e) {
    job.error = e.getMessage() == null ? e.toString() : e.getMessage();
    job.state = State.FAILED;
  }

  /** The job of a replay of {@code group}, shown as running while its claim is taken; refused when one runs. */
  private synchronized Job reserve(String topic, String group, String what, String user) {
    for (Job j : jobs.values()) {
      if (j.group.equals(group) && j.state == State.RUNNING) {
        throw new Busy(j.status());
      }
    }
    Job job = new Job(topic, group, what, user);
    jobs.put(job.id, job);
    forgetOld();
    return job;
  }

  private synchronized void forget(Job job) {
    jobs.remove(job.id);
  }

  public synchronized Optional<Status> get(String id) {
    return Optional.ofNullable(jobs.get(id)).map(Job::status);
  }

  /** The jobs of one dead-letter topic, newest first. */
  public synchronized List<Status> of(String topic) {
    List<Status> out = new ArrayList<>();
    jobs.values().forEach(j -> {
      if (j.topic.equals(topic)) {
        out.add(0, j.status());
      }
    });
    return out;
  }

  private void forgetOld() {
    var it = jobs.values().iterator();
    int over = jobs.size() - KEPT;
    while (over > 0 && it.hasNext()) {
      if (it.next().state != State.RUNNING) {
        it.remove();
        over--;
      }
    }
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
