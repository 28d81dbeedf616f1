package io.sluice.http;

import java.io.IOException;
import java.io.InputStream;

/**
 * Reads and drops the rest of a refused request's body before the refusal (413, 431) goes out: a connection closed
 * with input unread is reset, over TLS before the client has read the answer, and a client still sending would see no
 * answer at all. Shared by Sluice's servers and its additions to Connect's REST API.
 */
public final class RefusedBody {
  /** How much is read and dropped at most; past it the connection is cut. */
  public static final long DRAIN_LIMIT = 64L << 20;

  private RefusedBody() {}

  /**
   * Drops the rest of {@code in}, up to {@link #DRAIN_LIMIT}; a body declared larger than that ({@code
   * declaredLength}, -1 when unknown) is not read at all, its connection cut instead.
   */
  public static void drain(InputStream in, long declaredLength) {
    if (declaredLength > DRAIN_LIMIT) {
      return;
    }
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
