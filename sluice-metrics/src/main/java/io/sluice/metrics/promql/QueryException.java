package io.sluice.metrics.promql;

/** A query that parsed but could not be evaluated; {@link #errorType()} is Prometheus's {@code errorType}. */
public class QueryException extends RuntimeException {
  private final String errorType;

  public QueryException(String errorType, String message) {
    super(message);
    this.errorType = errorType;
  }

  public String errorType() {
    return errorType;
  }

  static QueryException execution(String message) {
    return new QueryException("execution", message);
  }

  static QueryException timeout() {
    return new QueryException("timeout", "query timed out in expression evaluation");
  }

  static QueryException tooManySamples() {
    return new QueryException("execution",
        "query processing would load too many samples into memory in query execution");
  }
}
