package io.sluice.metrics.storage;

/**
 * The narrow read side of storage that the PromQL engine, the HTTP API and (later) rules use. A querier sees the
 * samples with timestamps in {@code [mint, maxt]} (milliseconds since the epoch).
 */
@FunctionalInterface
public interface Queryable {
  Querier querier(long mint, long maxt);
}
