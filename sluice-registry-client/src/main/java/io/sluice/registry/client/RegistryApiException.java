package io.sluice.registry.client;

/**
 * The registry refused a request: HTTP status and Confluent's {@code error_code} and {@code message}
 * ({@code {"error_code":40401,"message":"Subject 'orders-value' not found."}}).
 */
public final class RegistryApiException extends IllegalStateException {
  public static final int SUBJECT_NOT_FOUND = 40401;
  public static final int VERSION_NOT_FOUND = 40402;
  public static final int SCHEMA_NOT_FOUND = 40403;
  public static final int INCOMPATIBLE_SCHEMA = 409;
  public static final int INVALID_SCHEMA = 42201;

  private final int status;
  private final int errorCode;
  private final String registryMessage;

  RegistryApiException(String doing, int status, int errorCode, String registryMessage) {
    super("cannot " + doing + ": the schema registry answered HTTP " + status + " (error code " + errorCode + "): "
        + registryMessage);
    this.status = status;
    this.errorCode = errorCode;
    this.registryMessage = registryMessage;
  }

  public int status() {
    return status;
  }

  /** Confluent's {@code error_code} (40401, 42201, ...); the HTTP status where the body had none. */
  public int errorCode() {
    return errorCode;
  }

  public String registryMessage() {
    return registryMessage;
  }

  /** The subject, version or schema asked for does not exist. */
  public boolean notFound() {
    return status == 404;
  }
}
