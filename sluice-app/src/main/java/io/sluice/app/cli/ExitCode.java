package io.sluice.app.cli;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one table of exit codes every {@code sluice} command ends with. A script can rely on a code meaning the same in
 * every command; {@code sluice --help} prints this table and {@code docs/cli.md} describes it. Change a code here only
 * with a note in {@code docs/release-notes.md}: scripts test them.
 */
public enum ExitCode {
  /** Done; a check found nothing wrong. */
  OK(0, "done; a check found nothing wrong"),
  /** The command ran and its answer is no: tables differ, a schema is incompatible, a wait ran out. */
  NO(1, "the check ran and the answer is no: tables differ, a schema is incompatible, a config file is broken, the "
      + "cluster is not whole, a wait ran out"),
  /** The command line (or the configuration it names) is wrong; nothing was done. */
  USAGE(2, "bad command line or configuration; nothing was done"),
  /** A rule, a precondition or the server said no; nothing was changed. */
  REFUSED(3, "refused (by a rule, a precondition or the server: unknown name, invalid config); nothing was changed"),
  /** A server or database could not be reached, or did not answer in time. */
  UNREACHABLE(4, "a server or database could not be reached or did not answer in time"),
  /** Something else holds what the command needs (another replay, a rebalance); nothing was changed, try later. */
  BUSY(5, "busy: another operation holds what this one needs (another replay, a Connect rebalance); nothing was "
      + "changed, try again later"),
  /** Failed part way: something was changed; the message says what state was left and which backup restores it. */
  PARTIAL(6, "failed part way: the message says what was changed and which backup restores it"),
  /** An error Sluice did not expect (a bug): the message, and with --verbose the stack trace. */
  INTERNAL(7, "an unexpected error (a bug: --verbose prints its stack trace)"),
  /** Interrupted (Ctrl-C). */
  INTERRUPTED(130, "interrupted (Ctrl-C)");

  private final int code;
  private final String meaning;

  ExitCode(int code, String meaning) {
    this.code = code;
    this.meaning = meaning;
  }

  public int code() {
    return code;
  }

  public String meaning() {
    return meaning;
  }

  /** The table as picocli's usage prints it under "Exit codes:", code to meaning. */
  public static Map<String, String> usageTable() {
    Map<String, String> table = new LinkedHashMap<>();
    Arrays.stream(values()).forEach(c -> table.put(String.valueOf(c.code), c.meaning));
    return table;
  }
}
