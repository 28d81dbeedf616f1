package io.sluice.registry.rest;

import io.sluice.registry.service.RegistryRefusal;

/** Confluent Schema Registry's HTTP status and {@code error_code} for each kind of refusal the rules make. */
final class ConfluentErrors {
  private ConfluentErrors() {}

  static int status(RegistryRefusal.Kind kind) {
    return switch (kind) {
      case SUBJECT_NOT_FOUND, VERSION_NOT_FOUND, SCHEMA_NOT_FOUND, SUBJECT_SOFT_DELETED, SUBJECT_NOT_SOFT_DELETED,
          VERSION_SOFT_DELETED, VERSION_NOT_SOFT_DELETED, SUBJECT_CONFIG_NOT_FOUND, SUBJECT_MODE_NOT_FOUND -> 404;
      case INCOMPATIBLE -> 409;
      case INVALID_SCHEMA, INVALID_VERSION, INVALID_COMPATIBILITY, INVALID_MODE, NOT_PERMITTED, REFERENCE_EXISTS,
          ID_MISMATCH -> 422;
    };
  }

  static int code(RegistryRefusal.Kind kind) {
    return switch (kind) {
      case SUBJECT_NOT_FOUND -> 40401;
      case VERSION_NOT_FOUND -> 40402;
      case SCHEMA_NOT_FOUND -> 40403;
      case SUBJECT_SOFT_DELETED -> 40404;
      case SUBJECT_NOT_SOFT_DELETED -> 40405;
      case VERSION_SOFT_DELETED -> 40406;
      case VERSION_NOT_SOFT_DELETED -> 40407;
      case SUBJECT_CONFIG_NOT_FOUND -> 40408;
      case SUBJECT_MODE_NOT_FOUND -> 40409;
      case INCOMPATIBLE -> 409;
      case INVALID_SCHEMA -> 42201;
      case INVALID_VERSION -> 42202;
      case INVALID_COMPATIBILITY -> 42203;
      case INVALID_MODE -> 42204;
      case NOT_PERMITTED -> 42205;
      case REFERENCE_EXISTS -> 42206;
      case ID_MISMATCH -> 42207;
    };
  }
}
