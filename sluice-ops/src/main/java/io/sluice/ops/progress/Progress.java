package io.sluice.ops.progress;

/**
 * Where a long operation reports how far it got. Operations take one of these instead of printing, so the same
 * operation drives a terminal bar ({@link ProgressBar}) or a percentage in an API answer.
 */
public interface Progress {
  /** Reports that {@code done} of {@code total} units are finished; {@code total} is negative when unknown. */
  void update(long done, long total);

  /** The operation ended (successfully or not); a bar ends its line here. */
  default void finish() {}

  /** For callers that do not want progress. */
  Progress NONE = (done, total) -> {};
}
