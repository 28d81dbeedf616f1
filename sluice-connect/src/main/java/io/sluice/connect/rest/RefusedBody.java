package io.sluice.connect.rest;

import java.io.IOException;
import java.io.InputStream;

/**
 * Reads and drops the rest of a refused request's body before the refusal goes out: a connection closed with input
 * unread is reset, over TLS before the client has read the answer, and a client still sending would see no 413 or
 * 431 at all.
 */
final class RefusedBody {
  /** How much is read and dropped at most; past it the connection is cut. */
  static final long DRAIN_LIMIT = 64L << 20;

  private RefusedBody() {}

  static void drain(InputStream in) {
    byte[] sink = new byte[64 * 1024];
    long total = 0;
    try {
      for (int n; total < DRAIN_LIMIT && (n = in.read(sink)) >= 0; ) {
        total += n;
      }
    } catch (IOException ignored) {
      // The answer goes out all the same.
    }
  }
}
