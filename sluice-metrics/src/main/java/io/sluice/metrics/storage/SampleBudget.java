package io.sluice.metrics.storage;

/**
 * How many samples one query may still take into memory. A store charges it with the samples of a selection before
 * it decodes them, so a selection larger than what is left fails before it takes the memory, not after.
 */
@FunctionalInterface
public interface SampleBudget {
  /** No limit: tools and tests that read a store they filled themselves. */
  SampleBudget UNLIMITED = samples -> {};

  /** Takes {@code samples} from what is left; throws the query's own error when that is more than is left. */
  void charge(long samples);
}
