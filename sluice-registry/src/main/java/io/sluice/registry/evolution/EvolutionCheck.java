package io.sluice.registry.evolution;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.registry.schema.CompatibilityChecker;
import io.sluice.registry.schema.CompatibilityChecker.Previous;
import io.sluice.registry.schema.CompatibilityLevel;
import io.sluice.registry.schema.CompatibilityPolicy;
import io.sluice.registry.schema.Dependency;
import io.sluice.registry.schema.InvalidSchemaException;
import io.sluice.registry.schema.ParsedSchema;
import io.sluice.registry.schema.SchemaFormats;
import io.sluice.registry.schema.SchemaProvider;
import io.sluice.registry.schema.SchemaReference;
import io.sluice.registry.schema.SchemaType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks a candidate schema against a subject of a running registry before anything is registered: reads the
 * subject's versions and configuration over the REST API and runs the registry's own checker locally under every
 * mode, so the answer for the subject's mode is exactly what registration would say.
 *
 * <pre>{@code
 * EvolutionReport report = EvolutionCheck.against("http://127.0.0.1:8081")
 *     .check("orders-value", schemaText, SchemaType.PROTOBUF, null);
 * }</pre>
 */
public final class EvolutionCheck {
  private final RegistryClient client;
  private final Map<SchemaType, SchemaProvider> providers = SchemaFormats.all();
  private final CompatibilityChecker checker = new CompatibilityChecker(providers);
  private final Map<String, JsonNode> fetched = new HashMap<>();

  private EvolutionCheck(String registryUrl) {
    this.client = new RegistryClient(registryUrl);
  }

  public static EvolutionCheck against(String registryUrl) {
    return new EvolutionCheck(registryUrl);
  }

  /** The schema a file name suggests: {@code .avsc} Avro, {@code .proto} Protobuf, {@code .json} JSON Schema. */
  public static Optional<SchemaType> typeOfFile(String fileName) {
    String f = fileName.toLowerCase(java.util.Locale.ROOT);
    if (f.endsWith(".avsc") || f.endsWith(".avro")) {
      return Optional.of(SchemaType.AVRO);
    }
    if (f.endsWith(".proto")) {
      return Optional.of(SchemaType.PROTOBUF);
    }
    if (f.endsWith(".json")) {
      return Optional.of(SchemaType.JSON);
    }
    return Optional.empty();
  }

  /**
   * Checks {@code schema} against {@code subject}. {@code references} name the candidate's dependencies; null reuses
   * those of the subject's latest version.
   *
   * @throws InvalidSchemaException when the candidate (or a stored version) does not parse
   * @throws IOException when the registry cannot be read
   */
  public EvolutionReport check(String subject, String schema, SchemaType type, List<SchemaReference> references)
      throws IOException, InvalidSchemaException {
    String s = RegistryClient.encode(subject);
    JsonNode config = client.get("/config/" + s + "?defaultToGlobal=true").orElseThrow(
        () -> new RegistryClient.RegistryUnavailableException("registry has no configuration"));
    CompatibilityLevel level = CompatibilityLevel.forName(config.path("compatibilityLevel").asText(null))
        .orElse(CompatibilityLevel.BACKWARD);
    CompatibilityPolicy policy = CompatibilityPolicy.forName(config.path("compatibilityPolicy").asText(null))
        .orElse(CompatibilityPolicy.STRICT);

    List<Integer> versions = new ArrayList<>();
    client.get("/subjects/" + s + "/versions").ifPresent(a -> a.forEach(v -> versions.add(v.asInt())));
    List<Previous> newestFirst = new ArrayList<>();
    List<SchemaReference> latestRefs = List.of();
    for (int i = versions.size() - 1; i >= 0; i--) {
      JsonNode v = version(subject, versions.get(i));
      List<SchemaReference> refs = references(v);
      if (i == versions.size() - 1) {
        latestRefs = refs;
      }
      newestFirst.add(new Previous(versions.get(i), parse(v.path("schema").asText(), typeOf(v), refs)));
    }
    List<SchemaReference> candidateRefs = references != null ? references : latestRefs;
    ParsedSchema candidate = parse(schema, type, candidateRefs);

    List<EvolutionReport.Verdict> verdicts = new ArrayList<>();
    for (CompatibilityLevel l : CompatibilityLevel.values()) {
      List<Previous> considered = l.transitive ? newestFirst : newestFirst.stream().limit(1).toList();
      verdicts.add(checker.firstBroken(l, policy, candidate, considered)
          .map(b -> new EvolutionReport.Verdict(l, false, b.version(), b.incompatibilities().stream()
              .map(x -> new EvolutionReport.Problem(x.kind(), x.path(), Wording.describe(x.kind()))).toList()))
          .orElseGet(() -> new EvolutionReport.Verdict(l, true, 0, List.of())));
    }
    List<ParsedSchema> sameType = newestFirst.stream().map(Previous::schema).filter(p -> p.type() == type).toList();
    List<String> warnings = providers.get(type).practiceWarnings(candidate, sameType);
    return new EvolutionReport(subject, type, versions, level, policy, verdicts, warnings);
  }

  private JsonNode version(String subject, int version) throws IOException {
    String key = subject + "\u0000" + version;
    JsonNode v = fetched.get(key);
    if (v == null) {
      v = client.get("/subjects/" + RegistryClient.encode(subject) + "/versions/" + version).orElseThrow(
          () -> new RegistryClient.RegistryUnavailableException("version " + version + " of " + subject
              + " disappeared while reading it"));
      fetched.put(key, v);
    }
    return v;
  }

  private static SchemaType typeOf(JsonNode v) {
    return SchemaType.forName(v.path("schemaType").asText(null)).orElse(SchemaType.AVRO);
  }

  private static List<SchemaReference> references(JsonNode v) {
    List<SchemaReference> out = new ArrayList<>();
    v.path("references").forEach(r -> out.add(new SchemaReference(r.path("name").asText(),
        r.path("subject").asText(), r.path("version").asInt())));
    return out;
  }

  private ParsedSchema parse(String text, SchemaType type, List<SchemaReference> refs)
      throws IOException, InvalidSchemaException {
    Map<String, Dependency> deps = new LinkedHashMap<>();
    for (SchemaReference r : refs) {
      resolve(r, deps);
    }
    return providers.get(type).parse(text, refs, List.copyOf(deps.values()));
  }

  /** Adds {@code ref} and what it depends on to {@code deps}, dependencies first. */
  private void resolve(SchemaReference ref, Map<String, Dependency> deps) throws IOException {
    if (deps.containsKey(ref.name())) {
      return;
    }
    int version = ref.version();
    if (version == -1) {
      JsonNode latest = client.get("/subjects/" + RegistryClient.encode(ref.subject()) + "/versions/latest")
          .orElseThrow(() -> new RegistryClient.RegistryUnavailableException("referenced subject " + ref.subject()
              + " not found"));
      version = latest.path("version").asInt();
    }
    JsonNode v = version(ref.subject(), version);
    for (SchemaReference nested : references(v)) {
      resolve(nested, deps);
    }
    deps.put(ref.name(), new Dependency(ref.name(), typeOf(v), v.path("schema").asText()));
  }
}
