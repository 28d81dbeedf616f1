package io.sluice.connect.testing;

/**
 * A sink that did not come to equal its source in time: how it differs, and whether it was still moving when the
 * wait ended (late) or had stood still (stalled, or rows lost), for a caller that can tell more (the sink's consumer
 * group, the connectors' states) to say which.
 */
public final class SinkMismatch extends AssertionError {
  private final SinkDifference difference;
  private final boolean moving;

  SinkMismatch(String message, SinkDifference difference, boolean moving) {
    super(message);
    this.difference = difference;
    this.moving = moving;
  }

  public SinkDifference difference() {
    return difference;
  }

  /** Whether the sink's rows were still changing when the wait ended. */
  public boolean moving() {
    return moving;
  }
}
