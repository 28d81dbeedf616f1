package io.sluice.registry.service;

import java.util.List;

/**
 * A request the registry's rules refuse, with its kind and Confluent's wording of it. Thrown from a decision, it
 * leaves the log untouched.
 */
public final class RegistryRefusal extends RuntimeException {
  /** What was refused; the REST layer maps each to Confluent's HTTP status and error code. */
  public enum Kind {
    SUBJECT_NOT_FOUND, VERSION_NOT_FOUND, SCHEMA_NOT_FOUND, SUBJECT_SOFT_DELETED, SUBJECT_NOT_SOFT_DELETED,
    VERSION_SOFT_DELETED, VERSION_NOT_SOFT_DELETED, SUBJECT_CONFIG_NOT_FOUND, SUBJECT_MODE_NOT_FOUND, INCOMPATIBLE,
    INVALID_SCHEMA, INVALID_VERSION, INVALID_COMPATIBILITY, INVALID_MODE, NOT_PERMITTED, REFERENCE_EXISTS,
    ID_MISMATCH
  }

  private final Kind kind;

  RegistryRefusal(Kind kind, String message) {
    super(message, null, false, false);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }

  public static RegistryRefusal subjectNotFound(String subject) {
    return new RegistryRefusal(Kind.SUBJECT_NOT_FOUND, "Subject '" + subject + "' not found.");
  }

  public static RegistryRefusal versionNotFound(int version) {
    return new RegistryRefusal(Kind.VERSION_NOT_FOUND, "Version " + version + " not found.");
  }

  public static RegistryRefusal schemaNotFound() {
    return new RegistryRefusal(Kind.SCHEMA_NOT_FOUND, "Schema not found");
  }

  public static RegistryRefusal schemaIdNotFound(int id) {
    return new RegistryRefusal(Kind.SCHEMA_NOT_FOUND, "Schema " + id + " not found");
  }

  public static RegistryRefusal subjectSoftDeleted(String subject) {
    return new RegistryRefusal(Kind.SUBJECT_SOFT_DELETED, "Subject '" + subject + "' was soft deleted.Set permanent=true to delete permanently");
  }

  public static RegistryRefusal subjectNotSoftDeleted(String subject) {
    return new RegistryRefusal(Kind.SUBJECT_NOT_SOFT_DELETED, "Subject '" + subject + "' was not deleted first before being permanently deleted");
  }

  public static RegistryRefusal versionSoftDeleted(String subject, int version) {
    return new RegistryRefusal(Kind.VERSION_SOFT_DELETED, "Subject '" + subject + "' Version " + version
        + " was soft deleted.Set permanent=true to delete permanently");
  }

  public static RegistryRefusal versionNotSoftDeleted(String subject, int version) {
    return new RegistryRefusal(Kind.VERSION_NOT_SOFT_DELETED, "Subject '" + subject + "' Version " + version
        + " was not deleted first before being permanently deleted");
  }

  public static RegistryRefusal subjectConfigNotFound(String subject) {
    return new RegistryRefusal(Kind.SUBJECT_CONFIG_NOT_FOUND, "Subject '" + subject + "' does not have subject-level compatibility configured");
  }

  public static RegistryRefusal subjectModeNotFound(String subject) {
    return new RegistryRefusal(Kind.SUBJECT_MODE_NOT_FOUND, "Subject '" + subject + "' does not have subject-level mode configured");
  }

  public static RegistryRefusal incompatible(String subject, List<String> messages) {
    return new RegistryRefusal(Kind.INCOMPATIBLE, "Schema being registered is incompatible with an earlier schema for subject \""
        + subject + "\", details: " + messages);
  }

  public static RegistryRefusal invalidSchema(String message) {
    return new RegistryRefusal(Kind.INVALID_SCHEMA, message);
  }

  public static RegistryRefusal invalidVersion(String version) {
    return new RegistryRefusal(Kind.INVALID_VERSION, "The specified version '" + version + "' is not a valid version id. "
        + "Allowed values are between [1, 2^31-1] and the string \"latest\"");
  }

  public static RegistryRefusal invalidCompatibility() {
    return new RegistryRefusal(Kind.INVALID_COMPATIBILITY, "Invalid compatibility level. Valid values are none, backward, forward, "
        + "full, backward_transitive, forward_transitive, and full_transitive");
  }

  public static RegistryRefusal invalidMode() {
    return new RegistryRefusal(Kind.INVALID_MODE, "Invalid mode. Valid values are READWRITE, READONLY, READONLY_OVERRIDE, and IMPORT");
  }

  public static RegistryRefusal notPermitted(String message) {
    return new RegistryRefusal(Kind.NOT_PERMITTED, message);
  }

  public static RegistryRefusal referenceExists(String subject, int version) {
    return new RegistryRefusal(Kind.REFERENCE_EXISTS, "One or more references exist to the schema {magic=1,keytype=SCHEMA,subject="
        + subject + ",version=" + version + "}.");
  }

  public static RegistryRefusal idMismatch(String message) {
    return new RegistryRefusal(Kind.ID_MISMATCH, message);
  }
}
