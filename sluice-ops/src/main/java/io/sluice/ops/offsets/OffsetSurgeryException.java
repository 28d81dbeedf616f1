package io.sluice.ops.offsets;

/**
 * Why offset surgery did not happen or did not finish. A {@link Kind#REFUSED} operation changed nothing; a
 * {@link Kind#FAILED} one says in its message what state it left (restored from a backup, or which backup to restore).
 */
public final class OffsetSurgeryException extends RuntimeException {
  public enum Kind { REFUSED, FAILED }

  private final Kind kind;

  OffsetSurgeryException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  static OffsetSurgeryException refused(String message) {
    return new OffsetSurgeryException(Kind.REFUSED, message, null);
  }

  static OffsetSurgeryException failed(String message, Throwable cause) {
    return new OffsetSurgeryException(Kind.FAILED, message, cause);
  }

  public Kind kind() {
    return kind;
  }
}
