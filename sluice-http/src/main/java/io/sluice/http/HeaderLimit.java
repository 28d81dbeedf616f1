package io.sluice.http;

/**
 * How large a request line and its headers may be, on every Sluice surface including Connect's REST API.
 *
 * <p>Jetty refuses headers past its buffer by closing the connection with input unread, which over TLS can reset the
 * connection before the client reads the 431. So servers give Jetty a buffer of {@link #BUFFER} bytes and answer 431
 * themselves past {@link #REFUSED_PAST} (Jetty's own default limit), after reading and dropping the body: each counts
 * a request with a {@link Tally}.
 */
public final class HeaderLimit {
  /** Jetty's default limit on the request line and headers, kept as the limit users see. */
  public static final int REFUSED_PAST = 8 << 10;
  /** How much request line and headers Jetty reads before refusing on its own. */
  public static final int BUFFER = 256 << 10;

  private HeaderLimit() {}

  /** What a request's line and header fields take in Jetty's buffer, near enough, counted field by field. */
  public static final class Tally {
    private long bytes;

    /** Starts with the request line: method, target, " HTTP/1.1" and CRLF. */
    public Tally(String method, String target) {
      bytes = method.length() + String.valueOf(target).length() + 12;
    }

    /** Adds one header field: name, ": ", value and CRLF. */
    public void field(String name, String value) {
      bytes += name.length() + String.valueOf(value).length() + 4;
    }

    /** Whether the request is answered 431: its line and fields take more than {@link #REFUSED_PAST}. */
    public boolean refused() {
      return bytes > REFUSED_PAST;
    }
  }
}
