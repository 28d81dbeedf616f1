package io.sluice.metrics.storage;

import io.sluice.metrics.model.Matcher;
import java.util.List;

/** Reads series from one time window; see {@link Queryable}. */
public interface Querier extends AutoCloseable {

  /** Every series matching all matchers, sorted by labels, with its samples in the window (possibly none). */
  List<SeriesData> select(List<Matcher> matchers);

  /** Sorted label names of series matching the matchers (all series when none are given). */
  List<String> labelNames(List<Matcher> matchers);

  /** Sorted values of one label among series matching the matchers. */
  List<String> labelValues(String name, List<Matcher> matchers);

  @Override
  default void close() {}
}
