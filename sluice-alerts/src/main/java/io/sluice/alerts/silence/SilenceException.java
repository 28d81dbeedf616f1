package io.sluice.alerts.silence;

/** A silence request that cannot be applied; {@link #notFound()} tells the API to answer 404. */
public final class SilenceException extends Exception {
  private final boolean notFound;

  public SilenceException(String message, boolean notFound) {
    super(message);
    this.notFound = notFound;
  }

  public boolean notFound() {
    return notFound;
  }
}
