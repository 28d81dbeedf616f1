package io.sluice.registry.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.http.HttpRequest;
import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.http.MalformedRequestException;
import io.sluice.http.ServerOptions;
import io.sluice.http.web.Role;
import io.sluice.registry.service.RegistryRefusal;
import io.sluice.registry.service.RegistryService;
import io.sluice.http.Json;
import io.sluice.schema.CompatibilityChecker;
import io.sluice.schema.CompatibilityLevel;
import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.ComparisonBudgetExceededException;
import io.sluice.schema.SchemaProvider;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import io.sluice.schema.protobuf.ProtobufSchemaProvider;
import io.sluice.registry.store.KafkaLogStore;
import io.sluice.registry.store.Mode;
import io.sluice.registry.store.RegistryState;
import io.sluice.registry.store.RegistryState.StoredSchema;
import io.sluice.registry.store.RegistryState.Version;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Confluent Schema Registry's REST API v1 over {@link HttpServer}: paths, JSON shapes, status and error codes. */
public final class RestApi {
  private static final Logger log = LoggerFactory.getLogger(RestApi.class);
  static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
  private static final Set<String> ACCEPTED_TYPES = Set.of("application/vnd.schemaregistry.v1+json",
      "application/vnd.schemaregistry+json", "application/json", "application/octet-stream");

  private final RegistryService service;
  private final RegistryState state;

  private RestApi(RegistryService service) {
    this.service = service;
    this.state = service.state();
  }

  /** Starts the API as the options say (port 0 picks a free port). */
  public static HttpServer start(ServerOptions options, RegistryState state, KafkaLogStore store,
      Map<SchemaType, SchemaProvider> providers, CompatibilityChecker checker) {
    RestApi api = new RestApi(new RegistryService(state, store, providers, checker));
    // Confluent's Jersey refuses a query string that does not decode; Sluice answers it 400 in Confluent's shape.
    return api.routes(HttpServer.builder("registry", options).maxThreads(64).refuseUndecodableQuery()
        .access(RestApi::requiredRole)
        // Confluent's codes for these: 40101 unauthenticated, 40301 denied.
        .refusal((status, message) -> error(status, status == 401 ? 40101 : 40301, message))).start();
  }

  /**
   * Reading needs {@code read}: every GET, and the POSTs that only ask (a lookup, a compatibility check); anything
   * that writes a schema, a config or a mode, or deletes, needs {@code admin}.
   */
  static Role requiredRole(String method, String path) {
    if (method.equals("GET") || method.equals("HEAD")) {
      return Role.READ;
    }
    boolean lookup = method.equals("POST") && path.matches("/subjects/[^/]+/?");
    boolean check = method.equals("POST") && path.startsWith("/compatibility/");
    return lookup || check ? Role.READ : Role.ADMIN;
  }

  private HttpServer.Builder routes(HttpServer.Builder b) {
    return b
        .get("/", req -> ok(Map.of()))
        .get("/schemas/types", req -> ok(List.of("JSON", "PROTOBUF", "AVRO")))
        // The hot path of every deserializer: answered on the thread that read the request (no hand-off to the
        // pool), as the lookup reads concurrent maps and never waits on the log or on a lock.
        .nonBlocking("GET", "/schemas/ids/{id}", this::schemaById)
        .nonBlocking("GET", "/schemas/ids/{id}/schema", req -> raw(stored(req).canonical()))
        .get("/schemas/ids/{id}/subjects", req -> ok(versionsOfId(req).stream().map(Version::subject).distinct().toList()))
        .get("/schemas/ids/{id}/versions", req -> ok(versionsOfId(req).stream()
            .map(v -> ordered("subject", v.subject(), "version", v.version())).toList()))
        .get("/schemas", this::schemas)
        .get("/subjects", this::subjects)
        .post("/subjects/{subject}", this::lookup)
        .delete("/subjects/{subject}", req -> ok(service.deleteSubject(req.pathParam("subject"), req.flag("permanent"))))
        .get("/subjects/{subject}/versions", req -> ok(service.liveOrAll(req.pathParam("subject"), req.flag("deleted"))
            .stream().map(Version::version).toList()))
        .post("/subjects/{subject}/versions", this::register)
        .get("/subjects/{subject}/versions/{version}", req -> ok(versionJson(service.view(version(req)),
            serialized(req))))
        .get("/subjects/{subject}/versions/{version}/schema", req -> raw(service.view(version(req)).schema()
            .canonical()))
        .get("/subjects/{subject}/versions/{version}/referencedby", req -> {
          Version v = version(req);
          return ok(state.referencedBy(v.subject(), v.version()));
        })
        .delete("/subjects/{subject}/versions/{version}", req -> ok(service.deleteVersion(req.pathParam("subject"),
            req.pathParam("version"), req.flag("permanent"))))
        .post("/compatibility/subjects/{subject}/versions/{version}", req -> compatibility(req,
            () -> service.checkAgainstVersion(req.pathParam("subject"), req.pathParam("version"), schemaRequest(req),
                req.flag("normalize"))))
        .post("/compatibility/subjects/{subject}/versions", req -> compatibility(req,
            () -> service.checkAgainstSubject(req.pathParam("subject"), schemaRequest(req), req.flag("normalize"))))
        .get("/config", req -> ok(configJson(service.level(null), service.explicitPolicy(null))))
        .put("/config", req -> setConfig(req, null))
        .delete("/config", req -> ok(Map.of("compatibilityLevel", service.deleteConfig(null).name())))
        .get("/config/{subject}", this::subjectConfig)
        .put("/config/{subject}", req -> setConfig(req, req.pathParam("subject")))
        .delete("/config/{subject}", req -> ok(Map.of("compatibilityLevel",
            service.deleteConfig(req.pathParam("subject")).name())))
        .get("/mode", req -> ok(Map.of("mode", service.effectiveMode(null).name())))
        .put("/mode", req -> {
          service.setMode(null, modeOf(req), req.flag("force"));
          return echo(req, "mode");
        })
        .delete("/mode", req -> ok(Map.of("mode", service.deleteMode(null).name())))
        .get("/mode/{subject}", this::subjectMode)
        .put("/mode/{subject}", req -> {
          service.setMode(req.pathParam("subject"), modeOf(req), req.flag("force"));
          return echo(req, "mode");
        })
        .delete("/mode/{subject}", req -> ok(Map.of("mode", service.deleteMode(req.pathParam("subject")).name())))
        .notFound(req -> error(404, 404, "HTTP 404 Not Found"))
        .methodNotAllowed(req -> error(405, 405, "HTTP 405 Method Not Allowed"))
        .onError(this::mapError);
  }

  // ---- handlers ----

  private HttpResponse schemaById(HttpRequest req) {
    StoredSchema s = stored(req);
    Map<String, Object> body = new LinkedHashMap<>();
    putTypeAndReferences(body, s);
    body.put("schema", schemaText(s, serialized(req)));
    return ok(body);
  }

  private StoredSchema stored(HttpRequest req) {
    int id = schemaId(req);
    return state.schemaById(id).orElseThrow(() -> RegistryRefusal.schemaIdNotFound(id));
  }

  private List<Version> versionsOfId(HttpRequest req) {
    int id = stored(req).id();
    return state.versionsOfId(id, req.flag("deleted"));
  }

  private static int schemaId(HttpRequest req) {
    try {
      return Integer.parseInt(req.pathParam("id"));
    } catch (NumberFormatException e) {
      throw new RegistryException(404, 404, "HTTP 404 Not Found");
    }
  }

  private HttpResponse subjects(HttpRequest req) {
    String prefix = req.param("subjectPrefix").orElse("");
    return ok(state.subjects(req.flag("deleted")).stream().filter(s -> s.startsWith(prefix)).toList());
  }

  /** {@code GET /schemas}: every version of every subject as schema entities, optionally only the latest ones. */
  private HttpResponse schemas(HttpRequest req) {
    String prefix = req.param("subjectPrefix").orElse("");
    boolean deleted = req.flag("deleted");
    boolean latestOnly = req.flag("latestOnly");
    int offset = Math.max(0, intParam(req, "offset").orElse(0));
    int limit = intParam(req, "limit").filter(l -> l > 0).orElse(Integer.MAX_VALUE);
    List<Map<String, Object>> out = state.read(() -> {
      List<Map<String, Object>> all = new ArrayList<>();
      for (String subject : state.subjects(deleted)) {
        if (!subject.startsWith(prefix)) {
          continue;
        }
        List<Version> vs = state.versions(subject, deleted);
        for (Version v : latestOnly && !vs.isEmpty() ? vs.subList(vs.size() - 1, vs.size()) : vs) {
          state.schemaById(v.id()).ifPresent(s -> all.add(
              versionJson(new RegistryService.VersionView(v.subject(), v.version(), v.id(), s))));
        }
      }
      return all;
    });
    return ok(out.subList(Math.min(offset, out.size()), (int) Math.min(out.size(), (long) offset + limit)));
  }

  private HttpResponse lookup(HttpRequest req) {
    RegistryService.VersionView v = service.lookup(req.pathParam("subject"), schemaRequest(req),
        req.flag("normalize"), req.flag("deleted"));
    return ok(versionJson(v));
  }

  private HttpResponse register(HttpRequest req) {
    int id = service.register(req.pathParam("subject"), schemaRequest(req), req.flag("normalize"));
    return ok(Map.of("id", id));
  }

  private Version version(HttpRequest req) {
    return service.resolve(req.pathParam("subject"), req.pathParam("version"), req.flag("deleted"));
  }

  /** With {@code verbose}, an invalid schema is an incompatible answer naming the parser's complaint, as in Confluent. */
  private HttpResponse compatibility(HttpRequest req, Supplier<List<String>> check) {
    List<String> messages;
    try {
      messages = check.get();
    } catch (RegistryRefusal e) {
      if (e.kind() != RegistryRefusal.Kind.INVALID_SCHEMA || !req.flag("verbose")) {
        throw e;
      }
      messages = List.of(e.getMessage());
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("is_compatible", messages.isEmpty());
    if (req.flag("verbose")) {
      body.put("messages", messages);
    }
    return ok(body);
  }

  private HttpResponse subjectConfig(HttpRequest req) {
    String subject = req.pathParam("subject");
    Optional<CompatibilityLevel> level = state.subjectConfig(subject);
    if (level.isEmpty() && !req.flag("defaultToGlobal")) {
      throw RegistryRefusal.subjectConfigNotFound(subject);
    }
    return ok(configJson(level.orElseGet(() -> service.level(null)), service.explicitPolicy(subject)));
  }

  /** Confluent's shape; {@code compatibilityPolicy} (JSON Schema strict/lenient) appears only where one is set. */
  private static Map<String, Object> configJson(CompatibilityLevel level, Optional<CompatibilityPolicy> policy) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("compatibilityLevel", level.name());
    policy.ifPresent(p -> body.put("compatibilityPolicy", p.name()));
    return body;
  }

  /** PUT takes {@code compatibility} and/or {@code compatibilityPolicy} and echoes what it was given. */
  private HttpResponse setConfig(HttpRequest req, String subject) {
    JsonNode b = body(req);
    boolean hasLevel = b.has("compatibility");
    boolean hasPolicy = b.has("compatibilityPolicy");
    CompatibilityLevel level = hasLevel || !hasPolicy
        ? CompatibilityLevel.forName(b.path("compatibility").asText(null)).orElseThrow(RegistryRefusal::invalidCompatibility)
        : null;
    CompatibilityPolicy policy = hasPolicy
        ? CompatibilityPolicy.forName(b.path("compatibilityPolicy").asText(null))
            .orElseThrow(RegistryRefusal::invalidCompatibility)
        : null;
    service.setConfig(subject, level, policy);
    Map<String, Object> echo = new LinkedHashMap<>();
    if (hasLevel) {
      echo.put("compatibility", b.get("compatibility").asText());
    }
    if (hasPolicy) {
      echo.put("compatibilityPolicy", b.get("compatibilityPolicy").asText());
    }
    return ok(echo);
  }

  private HttpResponse subjectMode(HttpRequest req) {
    String subject = req.pathParam("subject");
    Optional<Mode> mode = state.subjectMode(subject);
    if (mode.isEmpty() && !req.flag("defaultToGlobal")) {
      throw RegistryRefusal.subjectModeNotFound(subject);
    }
    return ok(Map.of("mode", mode.orElseGet(() -> service.effectiveMode(null)).name()));
  }

  // ---- request bodies ----

  private static JsonNode body(HttpRequest req) {
    Optional<String> type = req.contentType();
    if (type.isPresent() && !ACCEPTED_TYPES.contains(type.get())) {
      throw new RegistryException(415, 415, "HTTP 415 Unsupported Media Type");
    }
    JsonNode node = Json.read(req.body());
    if (!node.isObject()) {
      throw new RegistryException(422, 422, "Request body must be a JSON object");
    }
    return node;
  }

  private static RegistryService.SchemaRequest schemaRequest(HttpRequest req) {
    JsonNode b = body(req);
    JsonNode schema = b.get("schema");
    String text = schema == null || schema.isNull() ? null : schema.isTextual() ? schema.asText() : schema.toString();
    String typeName = b.hasNonNull("schemaType") ? b.get("schemaType").asText() : null;
    SchemaType type = SchemaType.forName(typeName)
        .orElseThrow(() -> RegistryRefusal.invalidSchema("Invalid schema type " + typeName));
    List<SchemaReference> refs = new ArrayList<>();
    for (JsonNode r : b.path("references")) {
      if (!r.hasNonNull("name") || !r.hasNonNull("subject")) {
        throw RegistryRefusal.invalidSchema("Invalid schema reference " + r + ": name and subject are required");
      }
      refs.add(new SchemaReference(r.get("name").asText(), r.get("subject").asText(), r.path("version").asInt(-1)));
    }
    Integer id = b.hasNonNull("id") ? b.get("id").asInt() : null;
    Integer version = b.hasNonNull("version") ? b.get("version").asInt() : null;
    return new RegistryService.SchemaRequest(text, type, refs, id, version);
  }

  private static Mode modeOf(HttpRequest req) {
    JsonNode b = body(req);
    return Mode.forName(b.path("mode").asText(null)).orElseThrow(RegistryRefusal::invalidMode);
  }

  // ---- responses ----

  /** Confluent answers a config or mode update with the request's own value, as the client spelled it. */
  private static HttpResponse echo(HttpRequest req, String field) {
    return ok(Map.of(field, body(req).get(field).asText()));
  }

  private Map<String, Object> versionJson(RegistryService.VersionView v) {
    return versionJson(v, false);
  }

  private Map<String, Object> versionJson(RegistryService.VersionView v, boolean serialized) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("subject", v.subject());
    body.put("version", v.version());
    body.put("id", v.id());
    putTypeAndReferences(body, v.schema());
    body.put("schema", schemaText(v.schema(), serialized));
    return body;
  }

  /**
   * {@code format=serialized}: a Protobuf schema as a base64 {@code FileDescriptorProto}, as Confluent's registry
   * serves it to its JavaScript and Go clients; other formats ignore it, as there.
   */
  private static boolean serialized(HttpRequest req) {
    return req.param("format").map("serialized"::equals).orElse(false);
  }

  private String schemaText(StoredSchema schema, boolean serialized) {
    return serialized && schema.type() == SchemaType.PROTOBUF
        ? ProtobufSchemaProvider.serialized(state.parsed(schema)) : schema.canonical();
  }

  /** Confluent leaves {@code schemaType} out for Avro and {@code references} out when there are none. */
  private static void putTypeAndReferences(Map<String, Object> body, StoredSchema s) {
    if (s.type() != SchemaType.AVRO) {
      body.put("schemaType", s.type().name());
    }
    if (!s.references().isEmpty()) {
      body.put("references", s.references().stream()
          .map(r -> ordered("name", r.name(), "subject", r.subject(), "version", r.version())).toList());
    }
  }

  private static Map<String, Object> ordered(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  private static HttpResponse ok(Object value) {
    return HttpResponse.json(200, CONTENT_TYPE, value);
  }

  private static HttpResponse raw(String schema) {
    return HttpResponse.of(200, CONTENT_TYPE, schema.getBytes(StandardCharsets.UTF_8));
  }

  private static HttpResponse error(int status, int code, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error_code", code);
    body.put("message", message);
    return HttpResponse.json(status, CONTENT_TYPE, body);
  }

  /**
   * An int query parameter as Confluent's Jersey reads it: a value that is not an int fails the resource match, which
   * JAX-RS answers 404 Not Found.
   */
  private static Optional<Integer> intParam(HttpRequest req, String name) {
    Optional<String> v = req.param(name);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Integer.parseInt(v.get().trim()));
    } catch (NumberFormatException e) {
      throw new RegistryException(404, 404, "HTTP 404 Not Found");
    }
  }

  private HttpResponse mapError(Throwable e) {
    if (e instanceof RegistryRefusal r) {
      return error(ConfluentErrors.status(r.kind()), ConfluentErrors.code(r.kind()), r.getMessage());
    }
    if (e instanceof RegistryException r) {
      return error(r.status, r.errorCode, r.getMessage());
    }
    if (e instanceof MalformedRequestException m) {
      return error(m.status(), m.status(), m.getMessage());
    }
    if (e instanceof ComparisonBudgetExceededException) {
      return error(500, 50002, "Operation timed out: " + e.getMessage());
    }
    if (e instanceof Json.MalformedJsonException) {
      return error(400, 400, "Unrecognized JSON: " + e.getMessage());
    }
    if (e instanceof KafkaLogStore.StoreException s) {
      log.warn("registry store error: {}", s.getMessage());
      return s.timeout ? error(500, 50002, "Operation timed out: " + s.getMessage())
          : error(500, 50001, "Error in the backend data store: " + s.getMessage());
    }
    log.error("registry request failed", e);
    return error(500, 500, "Internal Server Error");
  }
}
