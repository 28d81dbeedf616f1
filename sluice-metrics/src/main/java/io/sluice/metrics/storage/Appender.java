package io.sluice.metrics.storage;

import io.sluice.metrics.model.Labels;

/** A batch of samples that becomes visible and durable (in the WAL) on {@link #commit()}. */
public interface Appender {
  void append(Labels labels, long timestampMillis, double value);

  void commit();

  void rollback();
}
