package io.sluice.registry.rest;

/**
 * A request refused at the HTTP level, before the registry's rules see it (an unparseable parameter, a body of the
 * wrong type), with the status and code Confluent's Jersey answers it with.
 */
final class RegistryException extends RuntimeException {
  final int status;
  final int errorCode;

  RegistryException(int status, int errorCode, String message) {
    super(message, null, false, false);
    this.status = status;
    this.errorCode = errorCode;
  }
}
