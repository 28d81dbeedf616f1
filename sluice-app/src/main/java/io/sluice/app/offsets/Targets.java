package io.sluice.app.offsets;

import io.sluice.ops.offsets.Target;

/** Which of {@code set}'s three flag groups was given, as a {@link Target}. */
final class Targets {
  private Targets() {}

  static Target parse(String lsn, String file, String pos, String gtids, String changeLsn, String commitLsn) {
    boolean pg = lsn != null;
    boolean mysql = file != null || pos != null || gtids != null;
    boolean sqlServer = changeLsn != null || commitLsn != null;
    int groups = (pg ? 1 : 0) + (mysql ? 1 : 0) + (sqlServer ? 1 : 0);
    if (groups != 1) {
      throw new IllegalArgumentException("give exactly one position: --lsn L (PostgreSQL), --file F --pos P [--gtids G]"
          + " (MySQL) or --change-lsn C --commit-lsn C (SQL Server)");
    }
    if (pg) {
      return Target.lsn(lsn);
    }
    if (mysql) {
      return Target.binlog(file, pos, gtids);
    }
    return Target.changeLsn(changeLsn, commitLsn);
  }
}
