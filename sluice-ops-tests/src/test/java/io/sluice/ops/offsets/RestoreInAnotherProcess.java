package io.sluice.ops.offsets;

import java.nio.file.Path;

/**
 * {@code sluice offsets restore} as a separate process, for the test that kills it half-way: arguments are bootstrap
 * servers, Connect URL, offsets topic, backup dir and backup file. Writing is slowed (1 ms per 10 records) so the
 * killing test can reliably land inside the write.
 */
public final class RestoreInAnotherProcess {
  public static void main(String[] args) {
    OffsetSurgery surgery = OffsetSurgery.builder().bootstrapServers(args[0]).connectUrl(args[1]).offsetsTopic(args[2])
        .backupDir(Path.of(args[3]))
        .progress(label -> (done, total) -> {
          if (label.equals("restore") && done % 10 == 0) {
            try {
              Thread.sleep(1);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        }).build();
    surgery.restore(Path.of(args[4]), null, false);
    System.exit(0);
  }
}
