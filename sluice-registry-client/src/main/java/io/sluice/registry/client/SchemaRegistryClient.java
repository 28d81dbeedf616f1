package io.sluice.registry.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import io.sluice.client.HttpTransport.Reply;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one client of a Confluent-compatible schema registry in Sluice (Sluice's own, or any other): the operator tools
 * and the serializers use it. Ids never change meaning, so {@code id → schema} is cached for good, and so is
 * {@code (subject, schema) → id} once registered or looked up: a serializer asks the registry once per schema, never
 * per record. Every call may be retried on connection failures and 5xx (registering the same schema again gives the
 * same id), as {@link ClientOptions} says; refusals come back as {@link RegistryApiException} with Confluent's codes.
 *
 * <pre>{@code
 * SchemaRegistryClient registry = new SchemaRegistryClient("http://127.0.0.1:8081", ClientOptions.defaults());
 * int id = registry.register("orders-value", new Schema("AVRO", avroJson, List.of()));
 * Schema again = registry.schemaById(id);
 * }</pre>
 */
public final class SchemaRegistryClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpTransport http;
  private final Map<Integer, Schema> byId = new ConcurrentHashMap<>();
  private final Map<String, Map<Schema, Integer>> idsBySubject = new ConcurrentHashMap<>();

  /** A reference from one schema to a version of another subject, under the name the schema imports it by. */
  public record Reference(String name, String subject, int version) {}

  /** A schema as the registry holds it: {@code type} is AVRO, PROTOBUF or JSON (AVRO where the registry omits it). */
  public record Schema(String type, String schema, List<Reference> references) {
    public Schema {
      references = List.copyOf(references);
    }
  }

  /** One version of a subject. */
  public record SubjectVersion(String subject, int version, int id, Schema schema) {}

  public SchemaRegistryClient(String baseUrl, ClientOptions options) {
    this.http = new HttpTransport(baseUrl, options, "the schema registry");
  }

  public SchemaRegistryClient(String baseUrl) {
    this(baseUrl, ClientOptions.defaults());
  }

  public String baseUrl() {
    return http.baseUrl();
  }

  private static String subject(String subject) {
    return "/subjects/" + HttpTransport.segment(subject);
  }

  /** The schema with this id ({@code GET /schemas/ids/{id}}), from the cache after the first time. */
  public Schema schemaById(int id) {
    Schema cached = byId.get(id);
    if (cached != null) {
      return cached;
    }
    Schema s = schema(expect(http.send("GET", "/schemas/ids/" + id, null, true), "read schema id " + id));
    byId.put(id, s);
    return s;
  }

  /** Registers the schema under the subject (or finds it there) and returns its id; cached per subject. */
  public int register(String subject, Schema schema) {
    Integer cached = idsBySubject.getOrDefault(subject, Map.of()).get(schema);
    if (cached != null) {
      return cached;
    }
    JsonNode r = expect(http.send("POST", subject(subject) + "/versions", body(schema), true),
        "register a schema under subject " + subject);
    int id = r.path("id").asInt();
    remember(subject, schema, id);
    return id;
  }

  /** The version of the subject that holds this schema ({@code POST /subjects/{subject}}), or empty. */
  public Optional<SubjectVersion> lookup(String subject, Schema schema) {
    Reply r = http.send("POST", subject(subject), body(schema), true);
    if (r.status() == 404) {
      return Optional.empty();
    }
    SubjectVersion v = subjectVersion(expect(r, "look a schema up under subject " + subject));
    remember(subject, schema, v.id());
    return Optional.of(v);
  }

  /** The id of this schema under the subject: from the cache, else by lookup; empty when not registered there. */
  public Optional<Integer> idOf(String subject, Schema schema) {
    Integer cached = idsBySubject.getOrDefault(subject, Map.of()).get(schema);
    return cached != null ? Optional.of(cached) : lookup(subject, schema).map(SubjectVersion::id);
  }

  /** A version of the subject, or {@code "latest"}; empty when the subject or version does not exist. */
  public Optional<SubjectVersion> version(String subject, String version) {
    Reply r = http.send("GET", subject(subject) + "/versions/" + HttpTransport.segment(version), null, true);
    if (r.status() == 404) {
      return Optional.empty();
    }
    return Optional.of(subjectVersion(expect(r, "read version " + version + " of subject " + subject)));
  }

  public Optional<SubjectVersion> latest(String subject) {
    return version(subject, "latest");
  }

  /** The subject's versions, oldest first; empty when the subject does not exist. */
  public List<Integer> versions(String subject) {
    Reply r = http.send("GET", subject(subject) + "/versions", null, true);
    if (r.status() == 404) {
      return List.of();
    }
    List<Integer> out = new ArrayList<>();
    expect(r, "list the versions of subject " + subject).forEach(v -> out.add(v.asInt()));
    return out;
  }

  /** The subjects that hold the schema with this id ({@code GET /schemas/ids/{id}/subjects}); empty when unknown. */
  public List<String> subjectsOf(int id) {
    Reply r = http.send("GET", "/schemas/ids/" + id + "/subjects", null, true);
    if (r.status() == 404) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    expect(r, "list the subjects of schema id " + id).forEach(s -> out.add(s.asText()));
    return out;
  }

  /** A subject and version that hold a schema id. */
  public record Use(String subject, int version) {}

  /**
   * The subject versions that hold the schema with this id ({@code GET /schemas/ids/{id}/versions}); empty when the
   * id is unknown.
   */
  public List<Use> versionsOf(int id) {
    Reply r = http.send("GET", "/schemas/ids/" + id + "/versions", null, true);
    if (r.status() == 404) {
      return List.of();
    }
    List<Use> out = new ArrayList<>();
    expect(r, "list the versions of schema id " + id).forEach(u -> out.add(new Use(u.path("subject").asText(),
        u.path("version").asInt())));
    return out;
  }

  /** What the registry says of a candidate: compatible or not, and each incompatibility in its own words. */
  public record Compatibility(boolean compatible, List<String> messages) {
    public Compatibility {
      messages = List.copyOf(messages);
    }
  }

  /**
   * Whether {@code schema} would register against a version of the subject (or {@code latest}), as the registry words
   * it: {@code POST /compatibility/subjects/{subject}/versions/{version}?verbose=true}.
   */
  public Compatibility compatibility(String subject, String version, Schema schema) {
    JsonNode r = expect(http.send("POST", "/compatibility" + subject(subject) + "/versions/"
        + HttpTransport.segment(version) + "?verbose=true", body(schema), true),
        "check a schema against version " + version + " of subject " + subject);
    List<String> messages = new ArrayList<>();
    r.path("messages").forEach(m -> messages.add(m.asText()));
    return new Compatibility(r.path("is_compatible").asBoolean(false), messages);
  }

  public List<String> subjects() {
    List<String> out = new ArrayList<>();
    expect(http.send("GET", "/subjects", null, true), "list subjects").forEach(s -> out.add(s.asText()));
    return out;
  }

  /**
   * The subject's configuration as it applies ({@code GET /config/{subject}?defaultToGlobal=true}):
   * {@code compatibilityLevel} and, where set, {@code compatibilityPolicy}.
   */
  public JsonNode config(String subject) {
    return expect(http.send("GET", "/config/" + HttpTransport.segment(subject) + "?defaultToGlobal=true", null, true),
        "read the configuration of subject " + subject);
  }

  /** Sets the subject's compatibility level ({@code PUT /config/{subject}}), e.g. NONE before forcing a break in. */
  public void setCompatibility(String subject, String level) {
    expect(http.send("PUT", "/config/" + HttpTransport.segment(subject),
        JSON.createObjectNode().put("compatibility", level).toString(), true),
        "set the compatibility of subject " + subject);
  }

  private void remember(String subject, Schema schema, int id) {
    idsBySubject.computeIfAbsent(subject, s -> new ConcurrentHashMap<>()).put(schema, id);
    byId.putIfAbsent(id, schema);
  }

  private static String body(Schema schema) {
    ObjectNode b = JSON.createObjectNode();
    b.put("schema", schema.schema());
    if (!"AVRO".equals(schema.type())) {
      b.put("schemaType", schema.type());
    }
    if (!schema.references().isEmpty()) {
      ArrayNode refs = b.putArray("references");
      for (Reference r : schema.references()) {
        refs.addObject().put("name", r.name()).put("subject", r.subject()).put("version", r.version());
      }
    }
    return b.toString();
  }

  private static Schema schema(JsonNode body) {
    List<Reference> refs = new ArrayList<>();
    body.path("references").forEach(r -> refs.add(new Reference(r.path("name").asText(), r.path("subject").asText(),
        r.path("version").asInt())));
    return new Schema(body.path("schemaType").asText("AVRO"), body.path("schema").asText(), refs);
  }

  private static SubjectVersion subjectVersion(JsonNode body) {
    return new SubjectVersion(body.path("subject").asText(), body.path("version").asInt(), body.path("id").asInt(),
        schema(body));
  }

  private static JsonNode expect(Reply r, String doing) {
    JsonNode body = null;
    try {
      body = JSON.readTree(r.body());
    } catch (IOException notJson) {
      // Said below, with the body as it came.
    }
    if (r.ok() && body != null) {
      return body;
    }
    if (r.ok()) {
      // An answer, if not the protocol's: a refusal of the registry's, not the registry out of reach.
      throw new RegistryApiException(doing, r.status(), r.status(), "not JSON: " + r.body());
    }
    int code = body != null && body.has("error_code") ? body.path("error_code").asInt() : r.status();
    String message = body != null && body.has("message") ? body.path("message").asText() : r.body();
    throw new RegistryApiException(doing, r.status(), code, message);
  }
}
