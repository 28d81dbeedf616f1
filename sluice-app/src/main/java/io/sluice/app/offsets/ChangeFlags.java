package io.sluice.app.offsets;

import io.sluice.ops.offsets.OffsetSurgery;
import picocli.CommandLine;

/** The flags of commands that change a position. */
final class ChangeFlags {
  @CommandLine.Option(names = "--dry-run", description = "check and show before/after, change nothing")
  boolean dryRun;

  @CommandLine.Option(names = "--force",
      description = "proceed although the source no longer retains the target (recorded in the output)")
  boolean force;

  OffsetSurgery.Options options() {
    return new OffsetSurgery.Options(dryRun, force);
  }
}
