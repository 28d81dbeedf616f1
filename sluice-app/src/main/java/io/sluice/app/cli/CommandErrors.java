package io.sluice.app.cli;

import io.sluice.client.HttpTransport;
import io.sluice.connect.client.ConnectApiException;
import io.sluice.ops.dlq.ReplayRunning;
import io.sluice.ops.offsets.OffsetSurgeryException;
import io.sluice.ops.reconcile.ReconcileException;
import io.sluice.ops.snapshot.AdHocSnapshot;
import io.sluice.registry.client.RegistryApiException;
import io.sluice.topics.TopicLog;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine;

/**
 * The one place an error becomes an exit code: every command throws (a {@link CommandError}, or a library's typed
 * exception), and this handler, installed on the command line by {@code Main}, prints the message once and returns
 * the code of {@link ExitCode}'s table. A command returns a code itself only for an answer ({@link ExitCode#OK},
 * {@link ExitCode#NO}).
 */
public final class CommandErrors implements CommandLine.IExecutionExceptionHandler {
  /** The handler on {@code line} and its subcommands, and the exit-code table in its usage. */
  public static CommandLine install(CommandLine line) {
    line.setExecutionExceptionHandler(new CommandErrors());
    line.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes (the same for every command):%n")
        .exitCodeList(ExitCode.usageTable());
    return line;
  }

  @Override
  public int handleExecutionException(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
    ExitCode code = classify(e);
    PrintWriter err = command.getErr();
    err.println(switch (code) {
      case REFUSED -> "refused: ";
      case PARTIAL -> "failed: ";
      default -> "error: ";
    } + message(e, code));
    if (code == ExitCode.REFUSED && saysNothingChanged(e) && CommandAudit.CHANGES.contains(path(command))) {
      err.println("nothing was changed");
    }
    if (code == ExitCode.INTERNAL && verbose(command)) {
      e.printStackTrace(err);
    }
    err.flush();
    return code.code();
  }

  /** The exit code of an error, by its type: the whole mapping, for every command. */
  public static ExitCode classify(Throwable e) {
    if (e instanceof CommandError c) {
      return c.code();
    }
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      return ExitCode.INTERRUPTED;
    }
    if (e instanceof CommandLine.ParameterException) {
      return ExitCode.USAGE;
    }
    if (e instanceof HttpTransport.UnreachableException || e instanceof org.apache.kafka.common.errors.TimeoutException
        || e instanceof ConnectException) {
      return ExitCode.UNREACHABLE;
    }
    if (e instanceof TopicLog.TopicLogException t) {
      return t.timedOut() ? ExitCode.UNREACHABLE : ExitCode.REFUSED;
    }
    if (e instanceof ReplayRunning) {
      return ExitCode.BUSY;
    }
    if (e instanceof ConnectApiException c) {
      // Connect still rebalancing when the client stopped asking again: nothing was done, a later try succeeds.
      return c.rebalancing() ? ExitCode.BUSY : ExitCode.REFUSED;
    }
    if (e instanceof OffsetSurgeryException o) {
      return o.kind() == OffsetSurgeryException.Kind.REFUSED ? ExitCode.REFUSED : ExitCode.PARTIAL;
    }
    if (e instanceof AdHocSnapshot.Refused || e instanceof RegistryApiException) {
      return ExitCode.REFUSED;
    }
    if (e instanceof SQLException || e instanceof ReconcileException || e instanceof KafkaException
        || e instanceof IllegalArgumentException || e instanceof IllegalStateException || e instanceof IOException
        || e instanceof UncheckedIOException) {
      // A refusal without a type of its own (a table or topic that does not exist, a value a rule turns down):
      // nothing was done. Unreachable when what it wraps says so (a JDBC connection, a socket).
      return unreachable(e) ? ExitCode.UNREACHABLE : ExitCode.REFUSED;
    }
    return ExitCode.INTERNAL;
  }

  /**
   * Whether the error is a refusal before anything was done: its type says so (a value refused is checked before the
   * first change). An untyped error of a command that changes things may come half way, so it does not say it.
   */
  private static boolean saysNothingChanged(Throwable e) {
    return e instanceof CommandError || e instanceof OffsetSurgeryException || e instanceof AdHocSnapshot.Refused
        || e instanceof IllegalArgumentException;
  }

  private static boolean unreachable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof HttpTransport.UnreachableException || t instanceof ConnectException
          || t instanceof org.apache.kafka.common.errors.TimeoutException
          || t instanceof SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("08")) {
        return true;
      }
    }
    return false;
  }

  private static String message(Throwable e, ExitCode code) {
    if (e instanceof ConnectApiException c) {
      return c.connectMessage() + " (HTTP " + c.status() + ")";
    }
    if (code == ExitCode.INTERNAL || e.getMessage() == null) {
      return e.toString() + (code == ExitCode.INTERNAL ? " (--verbose prints where)" : "");
    }
    return e.getMessage();
  }

  /** "offsets reset", as {@link CommandAudit} names commands. */
  private static String path(CommandLine command) {
    List<String> names = new ArrayList<>();
    for (CommandLine c = command; c != null && c.getParent() != null; c = c.getParent()) {
      names.add(c.getCommandName());
    }
    Collections.reverse(names);
    return String.join(" ", names);
  }

  private static boolean verbose(CommandLine command) {
    CommandLine.Model.OptionSpec o = command.getCommandSpec().findOption("--verbose");
    return o != null && Boolean.TRUE.equals(o.getValue());
  }
}
