package io.sluice.metrics.storage;

import io.sluice.metrics.model.Labels;

/** A series and its samples in a window, timestamps ascending; the arrays are owned by the receiver. */
public record SeriesData(Labels labels, long[] timestamps, double[] values) {
  public int size() {
    return timestamps.length;
  }
}
