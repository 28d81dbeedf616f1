package io.sluice.ops.evolution;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import io.sluice.registry.client.RegistryApiException;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.registry.client.SchemaRegistryClient.SubjectVersion;
import io.sluice.schema.CompatibilityChecker;
import io.sluice.schema.CompatibilityChecker.Previous;
import io.sluice.schema.CompatibilityLevel;
import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.Dependency;
import io.sluice.schema.InvalidSchemaException;
import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaFormats;
import io.sluice.schema.SchemaProvider;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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
  private final SchemaRegistryClient client;
  private final Map<SchemaType, SchemaProvider> providers = SchemaFormats.all();
  private final CompatibilityChecker checker = new CompatibilityChecker(providers);
  private final Map<String, SubjectVersion> fetched = new HashMap<>();

  private EvolutionCheck(String registryUrl, ClientOptions options) {
    this.client = new SchemaRegistryClient(registryUrl, options);
  }

  @FunctionalInterface
  private interface Read<T> {
    T get();
  }

  /** The registry's refusals and its silence, as the one checked exception the check declares. */
  private <T> T read(Read<T> call) throws IOException {
    try {
      return call.get();
    } catch (HttpTransport.UnreachableException e) {
      throw new IOException("registry at " + client.baseUrl() + " is not reachable: " + e.getMessage(), e);
    } catch (RegistryApiException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  public static EvolutionCheck against(String registryUrl) {
    return against(registryUrl, ClientOptions.defaults());
  }

  /** As {@link #against(String)}, reaching the registry with these credentials and CA. */
  public static EvolutionCheck against(String registryUrl, ClientOptions options) {
    return new EvolutionCheck(registryUrl, options);
  }

  /** The schema a file name suggests: {@code .avsc} Avro, {@code .proto} Protobuf, {@code .json} JSON Schema. */
  public static Optional<SchemaType> typeOfFile(String fileName) {
    String f = fileName.toLowerCase(Locale.ROOT);
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
    JsonNode config = read(() -> client.config(subject));
    CompatibilityLevel level = CompatibilityLevel.forName(config.path("compatibilityLevel").asText(null))
        .orElse(CompatibilityLevel.BACKWARD);
    CompatibilityPolicy policy = CompatibilityPolicy.forName(config.path("compatibilityPolicy").asText(null))
        .orElse(CompatibilityPolicy.STRICT);

    List<Integer> versions = read(() -> client.versions(subject));
    List<Previous> newestFirst = new ArrayList<>();
    List<SchemaReference> latestRefs = List.of();
    for (int i = versions.size() - 1; i >= 0; i--) {
      SubjectVersion v = version(subject, versions.get(i));
      List<SchemaReference> refs = references(v);
      if (i == versions.size() - 1) {
        latestRefs = refs;
      }
      newestFirst.add(new Previous(versions.get(i), parse(v.schema().schema(), typeOf(v), refs)));
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

  private SubjectVersion version(String subject, int version) throws IOException {
    String key = subject + "\u0000" + version;
    SubjectVersion v = fetched.get(key);
    if (v == null) {
      v = read(() -> client.version(subject, Integer.toString(version))).orElseThrow(
          () -> new IOException("version " + version + " of " + subject + " disappeared while reading it"));
      fetched.put(key, v);
    }
    return v;
  }

  private static SchemaType typeOf(SubjectVersion v) {
    return SchemaType.forName(v.schema().type()).orElse(SchemaType.AVRO);
  }

  private static List<SchemaReference> references(SubjectVersion v) {
    return v.schema().references().stream().map(r -> new SchemaReference(r.name(), r.subject(), r.version())).toList();
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
      version = read(() -> client.latest(ref.subject())).orElseThrow(() -> new IOException("referenced subject "
          + ref.subject() + " not found")).version();
    }
    SubjectVersion v = version(ref.subject(), version);
    for (SchemaReference nested : references(v)) {
      resolve(nested, deps);
    }
    deps.put(ref.name(), new Dependency(ref.name(), typeOf(v), v.schema().schema()));
  }
}
