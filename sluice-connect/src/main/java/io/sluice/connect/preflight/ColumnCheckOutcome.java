package io.sluice.connect.preflight;

import java.util.List;

/**
 * What a source's column check found ({@link PostgresColumnCheck}, {@link BinlogColumnCheck}): the columns read,
 * nothing checked and why, or Sluice's own key wrong. One set for every engine, so that the worker's REST additions
 * treat a skip and a bad key alike whatever the source.
 */
public sealed interface ColumnCheckOutcome
    permits ColumnCheckOutcome.Checked, ColumnCheckOutcome.Skipped, ColumnCheckOutcome.Invalid {

  /** Columns read: {@code refused} block the config, {@code accepted} are losses the config accepts. */
  sealed interface Checked extends ColumnCheckOutcome permits PostgresColumnCheck.Checked, BinlogColumnCheck.Checked {
    List<ColumnFinding> refused();

    List<ColumnFinding> accepted();
  }

  /** Nothing checked, and why (the database unreachable, say): a warning in the log, never a refusal. */
  record Skipped(String reason) implements ColumnCheckOutcome {}

  /** Sluice's own key is wrong: an error on that key. */
  record Invalid(String key, String message) implements ColumnCheckOutcome {}
}
