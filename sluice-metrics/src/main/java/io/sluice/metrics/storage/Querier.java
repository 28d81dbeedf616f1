package io.sluice.metrics.storage;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import java.util.List;

/** Reads series from one time window; see {@link Queryable}. */
public interface Querier extends AutoCloseable {

  /** Every series matching all matchers that has samples in the window, sorted by labels, with those samples. */
  default List<SeriesData> select(List<Matcher> matchers) {
    return select(matchers, SampleBudget.UNLIMITED);
  }

  /** As {@link #select(List)}, charging {@code budget} with the samples before they are decoded. */
  List<SeriesData> select(List<Matcher> matchers, SampleBudget budget);

  /**
   * The labels of every series matching all matchers whose data overlaps the window, sorted, read from the index
   * without decoding a sample: what {@code /api/v1/series} and the label endpoints answer, as Prometheus does (a
   * series counts when one of its chunks spans part of the window).
   */
  List<Labels> series(List<Matcher> matchers);

  /** Sorted label names of series matching the matchers (all series when none are given). */
  List<String> labelNames(List<Matcher> matchers);

  /** Sorted values of one label among series matching the matchers. */
  List<String> labelValues(String name, List<Matcher> matchers);

  @Override
  default void close() {}
}
