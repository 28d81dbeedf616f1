package io.sluice.http;

/**
 * A request the server refuses before any handler sees it: a body over the server's limit (413), a path with a
 * broken percent-escape (400), or, where the server asks for it, such a query string (400). Each server's {@link HttpServer.Builder#onError} renders it in its API's own error
 * shape with {@link #status()}.
 */
public final class MalformedRequestException extends RuntimeException {
  private final int status;

  private MalformedRequestException(int status, String message) {
    super(message);
    this.status = status;
  }

  static MalformedRequestException tooLarge(long limit) {
    return new MalformedRequestException(413, "request body is larger than the limit of " + limit + " bytes");
  }

  static MalformedRequestException badPath(String path, String reason) {
    return new MalformedRequestException(400, "invalid URL path " + path + ": " + reason);
  }

  static MalformedRequestException badQuery(String reason) {
    return new MalformedRequestException(400, "invalid query string: " + reason);
  }

  /** 413 or 400. */
  public int status() {
    return status;
  }
}
