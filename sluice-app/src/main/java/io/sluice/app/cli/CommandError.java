package io.sluice.app.cli;

import java.util.Objects;

/**
 * Why a command did not do what it was asked, typed by the one {@link ExitCode} it ends with. Commands throw it (or a
 * library's own typed exception, which {@link CommandErrors} knows) and never pick an exit code of their own for an
 * error; the message is printed once, by {@link CommandErrors}.
 */
public final class CommandError extends RuntimeException {
  private final ExitCode code;

  private CommandError(ExitCode code, String message, Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code);
    if (code == ExitCode.OK || code == ExitCode.NO) {
      throw new IllegalArgumentException(code + " is an answer, not an error");
    }
  }

  /** A bad command line or configuration: nothing was done. */
  public static CommandError usage(String message) {
    return new CommandError(ExitCode.USAGE, message, null);
  }

  /** A rule, a precondition or the server said no: nothing was changed. */
  public static CommandError refused(String message) {
    return new CommandError(ExitCode.REFUSED, message, null);
  }

  /** A server or database could not be reached. */
  public static CommandError unreachable(String message, Throwable cause) {
    return new CommandError(ExitCode.UNREACHABLE, message, cause);
  }

  /** Something else holds what the command needs: try again later. */
  public static CommandError busy(String message) {
    return new CommandError(ExitCode.BUSY, message, null);
  }

  /** Failed part way: the message says what was changed and how to put it back. */
  public static CommandError partial(String message, Throwable cause) {
    return new CommandError(ExitCode.PARTIAL, message, cause);
  }

  public ExitCode code() {
    return code;
  }
}
