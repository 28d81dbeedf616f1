package io.sluice.ops.reconcile;

/** Reconciliation could not run (connection, catalogue, SQL); distinct from finding differences. */
public final class ReconcileException extends RuntimeException {
  public ReconcileException(String message) {
    super(message);
  }

  public ReconcileException(String message, Throwable cause) {
    super(message, cause);
  }
}
