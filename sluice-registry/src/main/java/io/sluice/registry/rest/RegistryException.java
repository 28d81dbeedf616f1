package io.sluice.registry.rest;

/**
 * A request the registry refuses, with Confluent's HTTP status and error code. Thrown from a decision, it leaves the
 * log untouched.
 */
final class RegistryException extends RuntimeException {
  final int status;
  final int errorCode;

  RegistryException(int status, int errorCode, String message) {
    super(message, null, false, false);
    this.status = status;
    this.errorCode = errorCode;
  }

  static RegistryException subjectNotFound(String subject) {
    return new RegistryException(404, 40401, "Subject '" + subject + "' not found.");
  }

  static RegistryException versionNotFound(int version) {
    return new RegistryException(404, 40402, "Version " + version + " not found.");
  }

  static RegistryException schemaNotFound() {
    return new RegistryException(404, 40403, "Schema not found");
  }

  static RegistryException schemaIdNotFound(int id) {
    return new RegistryException(404, 40403, "Schema " + id + " not found");
  }

  static RegistryException subjectSoftDeleted(String subject) {
    return new RegistryException(404, 40404,
        "Subject '" + subject + "' was soft deleted.Set permanent=true to delete permanently");
  }

  static RegistryException subjectNotSoftDeleted(String subject) {
    return new RegistryException(404, 40405,
        "Subject '" + subject + "' was not deleted first before being permanently deleted");
  }

  static RegistryException versionSoftDeleted(String subject, int version) {
    return new RegistryException(404, 40406, "Subject '" + subject + "' Version " + version
        + " was soft deleted.Set permanent=true to delete permanently");
  }

  static RegistryException versionNotSoftDeleted(String subject, int version) {
    return new RegistryException(404, 40407, "Subject '" + subject + "' Version " + version
        + " was not deleted first before being permanently deleted");
  }

  static RegistryException subjectConfigNotFound(String subject) {
    return new RegistryException(404, 40408,
        "Subject '" + subject + "' does not have subject-level compatibility configured");
  }

  static RegistryException subjectModeNotFound(String subject) {
    return new RegistryException(404, 40409, "Subject '" + subject + "' does not have subject-level mode configured");
  }

  static RegistryException incompatible(String subject, java.util.List<String> messages) {
    return new RegistryException(409, 409, "Schema being registered is incompatible with an earlier schema for subject \""
        + subject + "\", details: " + messages);
  }

  static RegistryException invalidSchema(String message) {
    return new RegistryException(422, 42201, message);
  }

  static RegistryException invalidVersion(String version) {
    return new RegistryException(422, 42202, "The specified version '" + version + "' is not a valid version id. "
        + "Allowed values are between [1, 2^31-1] and the string \"latest\"");
  }

  static RegistryException invalidCompatibility() {
    return new RegistryException(422, 42203, "Invalid compatibility level. Valid values are none, backward, forward, "
        + "full, backward_transitive, forward_transitive, and full_transitive");
  }

  static RegistryException invalidMode() {
    return new RegistryException(422, 42204,
        "Invalid mode. Valid values are READWRITE, READONLY, READONLY_OVERRIDE, and IMPORT");
  }

  static RegistryException notPermitted(String message) {
    return new RegistryException(422, 42205, message);
  }

  static RegistryException referenceExists(String subject, int version) {
    return new RegistryException(422, 42206, "One or more references exist to the schema {magic=1,keytype=SCHEMA,subject="
        + subject + ",version=" + version + "}.");
  }

  static RegistryException idMismatch(String message) {
    return new RegistryException(422, 42207, message);
  }
}
