package io.sluice.metrics.storage;

/** Read and write access to a time-series store. */
public interface Storage extends Queryable, AutoCloseable {
  Appender appender();

  @Override
  void close();
}
