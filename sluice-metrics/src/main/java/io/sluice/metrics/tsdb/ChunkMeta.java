package io.sluice.metrics.tsdb;

/** An encoded XOR chunk and the time range it covers. */
record ChunkMeta(long mint, long maxt, byte[] data) {}
