package io.sluice.registry.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

  /**
   * Why a schema was refused as incompatible, read from the registry's message in Confluent's shape
   * ({@code details: [{errorType:'…', description:'…'}, {oldSchemaVersion: 1}, {oldSchema: '…'},
   * {validateFields: 'false', compatibility: 'BACKWARD'}]}): each rule broken with its description, the version it
   * broke with (0 when not said) and the subject's mode (null when not said).
   */
  public record Incompatibility(List<String> rules, int version, String compatibility) {
    public Incompatibility {
      rules = List.copyOf(rules);
    }

    /** "breaks BACKWARD compatibility with version 1: RULE: description; …", as much of it as the registry said. */
    public String summary() {
      return "breaks " + (compatibility == null ? "the subject's" : compatibility) + " compatibility"
          + (version > 0 ? " with version " + version : "") + ": "
          + (rules.isEmpty() ? "(the registry named no rule)" : String.join("; ", rules));
    }
  }

  /** Avro's checker quotes with ', Protobuf's and JSON Schema's with ". */
  private static final Pattern RULE = Pattern.compile(
      "errorType:(['\"])([A-Za-z_]+)\\1(?:, description:(['\"])(.*?)\\3(?=, additionalInfo:|\\}))?");
  private static final Pattern OLD_VERSION = Pattern.compile("\\{oldSchemaVersion: (\\d+)\\}");
  private static final Pattern COMPATIBILITY = Pattern.compile("compatibility: '([A-Z_]+)'");

  /** The refusal of an incompatible schema, read; empty for any other refusal. */
  public Optional<Incompatibility> incompatibility() {
    if (errorCode != INCOMPATIBLE_SCHEMA || registryMessage == null) {
      return Optional.empty();
    }
    // The old schema's own text may hold anything; the rules and the rest come before and after it.
    String message = registryMessage;
    int old = message.indexOf("{oldSchema: '");
    int after = message.lastIndexOf("}, {validateFields");
    String rules = old < 0 ? message : message.substring(0, old);
    String tail = after < 0 ? (old < 0 ? "" : message.substring(old)) : message.substring(after);
    List<String> found = new ArrayList<>();
    Matcher r = RULE.matcher(rules);
    while (r.find()) {
      found.add(r.group(2) + (r.group(4) == null || r.group(4).isBlank() ? "" : ": " + r.group(4)));
    }
    Matcher v = OLD_VERSION.matcher(rules);
    Matcher c = COMPATIBILITY.matcher(tail);
    return Optional.of(new Incompatibility(found, v.find() ? Integer.parseInt(v.group(1)) : 0,
        c.find() ? c.group(1) : null));
  }
}
