package io.sluice.connect.client;

/**
 * Kafka Connect refused a request: the HTTP status, and the {@code error_code} and {@code message} of Connect's error
 * body ({@code {"error_code":409,"message":"Connector x already exists"}}).
 */
public final class ConnectApiException extends IllegalStateException {
  private final int status;
  private final int errorCode;
  private final String connectMessage;

  ConnectApiException(String doing, int status, int errorCode, String connectMessage) {
    super("cannot " + doing + ": Kafka Connect answered HTTP " + status + ": " + connectMessage);
    this.status = status;
    this.errorCode = errorCode;
    this.connectMessage = connectMessage;
  }

  public int status() {
    return status;
  }

  /** Connect's {@code error_code}; the HTTP status where the body had none. */
  public int errorCode() {
    return errorCode;
  }

  /**
   * Whether Connect said it is rebalancing (a 409 to a change, or "a rebalance is expected"): nothing was done, and
   * the same request succeeds once the group settles. A create's 409 for a connector that exists is not one.
   */
  public boolean rebalancing() {
    return ConnectRestClient.rebalancing(connectMessage)
        || status == 409 && (connectMessage == null || !connectMessage.contains("already exists"));
  }

  /** Connect's own {@code message}, or the body as it came. */
  public String connectMessage() {
    return connectMessage;
  }
}
