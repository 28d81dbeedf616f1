package io.sluice.ops.offsets;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where {@code sluice offsets set} moves a connector: one shape per kind of source position. The factory methods
 * refuse malformed values, so a {@code Target} that exists is well-formed; whether it fits the connector's type is
 * the {@link OffsetFormat}'s question.
 */
public sealed interface Target {

  /** A PostgreSQL log sequence number. */
  record Lsn(long value) implements Target {
    public Lsn {
      if (value < 0) {
        throw new IllegalArgumentException("an LSN is not negative: " + value);
      }
    }

    @Override
    public String toString() {
      return value + " (" + PostgresOffsets.hex(value) + ")";
    }
  }

  /** A MySQL binlog coordinate, with the GTID set when the server uses GTIDs. */
  record Binlog(String file, long pos, String gtids) implements Target {}

  /** A SQL Server change LSN and commit LSN, each {@code xxxxxxxx:xxxxxxxx:xxxx} in hex. */
  record ChangeLsn(String changeLsn, String commitLsn) implements Target {}

  Pattern HEX_LSN = Pattern.compile("([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})");
  Pattern BINLOG_FILE = Pattern.compile("[A-Za-z0-9_.-]+\\.[0-9]{6,}");
  Pattern SQLSERVER_LSN = Pattern.compile("[0-9A-Fa-f]{8}:[0-9A-Fa-f]{8}:[0-9A-Fa-f]{4}");
  Pattern GTID_SET = Pattern.compile("[0-9A-Fa-f-]{36}(:[0-9]+(-[0-9]+)?)+(\\s*,\\s*[0-9A-Fa-f-]{36}(:[0-9]+(-[0-9]+)?)+)*"
      + "|[0-9]+-[0-9]+-[0-9]+(\\s*,\\s*[0-9]+-[0-9]+-[0-9]+)*");

  /** An LSN written as PostgreSQL prints it ({@code 16/B374D848}) or as the decimal number offsets store. */
  static Lsn lsn(String text) {
    String t = text == null ? "" : text.trim();
    var hex = HEX_LSN.matcher(t);
    if (hex.matches()) {
      return new Lsn((Long.parseLong(hex.group(1), 16) << 32) | Long.parseLong(hex.group(2), 16));
    }
    if (t.matches("[0-9]{1,19}")) {
      try {
        return new Lsn(Long.parseLong(t));
      } catch (NumberFormatException e) {
        // Falls through to the refusal below.
      }
    }
    throw new IllegalArgumentException("malformed LSN '" + text + "': expected X/Y in hex (as pg_current_wal_lsn()"
        + " prints it, e.g. 0/16B3748) or a decimal number (as the offset stores it, e.g. 23806792)");
  }

  static Binlog binlog(String file, String pos, String gtids) {
    if (file == null || !BINLOG_FILE.matcher(file.trim()).matches()) {
      throw new IllegalArgumentException("malformed binlog file name '" + file + "': expected e.g. mysql-bin.000003"
          + " (as SHOW BINARY LOGS lists it)");
    }
    long p;
    try {
      p = Long.parseLong(pos == null ? "" : pos.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("malformed binlog position '" + pos + "': expected a whole number");
    }
    if (p < 4) {
      throw new IllegalArgumentException("binlog position " + p + " is before the first event (positions start at 4)");
    }
    if (gtids != null && !GTID_SET.matcher(gtids.trim()).matches()) {
      throw new IllegalArgumentException("malformed GTID set '" + gtids + "': expected uuid:from-to[,...]"
          + " (MySQL) or domain-server-sequence[,...] (MariaDB)");
    }
    return new Binlog(file.trim(), p, gtids == null ? null : gtids.trim());
  }

  static ChangeLsn changeLsn(String change, String commit) {
    for (String v : new String[] {change, commit}) {
      if (v == null || !SQLSERVER_LSN.matcher(v.trim()).matches()) {
        throw new IllegalArgumentException("malformed SQL Server LSN '" + v + "': expected xxxxxxxx:xxxxxxxx:xxxx in"
            + " hex, e.g. 0000002d:00000a58:0003");
      }
    }
    return new ChangeLsn(change.trim().toLowerCase(Locale.ROOT), commit.trim().toLowerCase(Locale.ROOT));
  }
}
