package io.sluice.alerts.notify;

/** A failed send; {@link #retryable()} is false for answers that a retry cannot change (4xx other than 429). */
final class SendException extends Exception {
  private final boolean retryable;

  SendException(String message, boolean retryable, Throwable cause) {
    super(message, cause);
    this.retryable = retryable;
  }

  boolean retryable() {
    return retryable;
  }
}
