package io.sluice.ops.dlq;

import io.sluice.ops.progress.Progress;

/**
 * A replay whose group this run holds (see {@link DeadLetterQueue#claim}): taken where the caller can still answer
 * "already running", run later, perhaps on another thread. Closing it without running it gives the group back.
 */
public final class ReplayClaim implements AutoCloseable {
  private final Replayer replayer;
  private final ReplayRequest request;
  private final ReplayLease lease;
  private boolean used;

  ReplayClaim(Replayer replayer, ReplayRequest request) {
    this.replayer = replayer;
    this.request = request;
    this.lease = replayer.lease(request);
  }

  public ReplayRequest request() {
    return request;
  }

  /** Runs the replay once (see {@link DeadLetterQueue#replay}), then gives the group back. */
  public synchronized ReplayResult replay(Progress progress) {
    if (used) {
      throw new IllegalStateException("this claim of group " + request.group() + " was used already");
    }
    used = true;
    try {
      return replayer.run(request, progress, lease);
    } finally {
      close();
    }
  }

  @Override
  public void close() {
    if (lease != null) {
      lease.close();
    }
  }
}
