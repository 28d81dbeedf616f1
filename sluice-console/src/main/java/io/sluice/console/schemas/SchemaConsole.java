package io.sluice.console.schemas;

import static io.sluice.console.reads.ParallelReads.join;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.client.ClientOptions;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.registry.client.SchemaRegistryClient.SubjectVersion;
import io.sluice.ops.evolution.EvolutionCheck;
import io.sluice.ops.evolution.EvolutionReport;
import io.sluice.schema.CompatibilityLevel;
import io.sluice.schema.InvalidSchemaException;
import io.sluice.schema.SchemaType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/**
 * The console's schema pages over the registry's REST API, through Sluice's one registry client: subjects a page at a
 * time with their format, versions and compatibility; a version's schema; two versions side by side; a subject's
 * compatibility set; and a candidate schema checked as the registry would check it at registration (its own words,
 * {@code POST /compatibility/...?verbose=true}) beside what {@code sluice schema check} says of it under every mode
 * and the rollout order it advises ({@link EvolutionCheck}, the same code).
 */
public final class SchemaConsole {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Subjects on one page of the list: the registry is asked about these only. */
  public static final int PAGE_SIZE = 50;

  private final SchemaRegistryClient registry;
  private final String url;
  private final ClientOptions options;
  private final ExecutorService pool;
  /** How long the list of subjects and a subject's row are shown again before the registry is asked anew. */
  static final java.time.Duration RECENT = java.time.Duration.ofSeconds(2);
  private final java.time.Clock clock = java.time.Clock.systemUTC();
  private final io.sluice.console.reads.Recent<List<String>> names;
  /** Each subject's row as last read, and when: one small object per subject, as the registry holds subjects. */
  private final java.util.Map<String, Read> rowsRead = new java.util.concurrent.ConcurrentHashMap<>();

  private record Read(ObjectNode row, long at) {}

  public SchemaConsole(String url, ClientOptions options, ExecutorService pool) {
    this.registry = new SchemaRegistryClient(url, options);
    this.url = url;
    this.options = options;
    this.pool = pool;
    this.names = new io.sluice.console.reads.Recent<>(RECENT, clock, registry::subjects);
  }

  public String url() {
    return registry.baseUrl();
  }

  /** One page of a list: its items, and where it sits among all. */
  public record Page<T>(List<T> items, int page, int pages, int total) {}

  /**
   * Page {@code page} (from 1) of the names containing {@code filter} (case-insensitive), sorted; a page past the
   * last is the last.
   */
  public static Page<String> page(List<String> names, String filter, int page, int size) {
    String f = filter == null ? "" : filter.toLowerCase(Locale.ROOT);
    List<String> matching = names.stream().filter(n -> n.toLowerCase(Locale.ROOT).contains(f)).sorted().toList();
    int pages = Math.max(1, (matching.size() + size - 1) / size);
    int p = Math.min(Math.max(1, page), pages);
    int from = (p - 1) * size;
    return new Page<>(matching.subList(Math.min(from, matching.size()), Math.min(from + size, matching.size())), p,
        pages, matching.size());
  }

  /**
   * The subjects of a page, each with its format, versions and compatibility, read side by side; the list of names
   * and a row read within {@link #RECENT} are shown again (a change made here forgets its subject's row).
   */
  public ObjectNode subjects(String filter, int pageNumber) {
    List<String> all;
    try {
      all = names.get();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    Page<String> page = page(all, filter, pageNumber, PAGE_SIZE);
    record Row(String name, CompletableFuture<List<Integer>> versions, CompletableFuture<Optional<SubjectVersion>>
        latest, CompletableFuture<JsonNode> config) {}
    long now = clock.millis();
    List<Row> rows = new ArrayList<>();
    for (String s : page.items()) {
      Read known = rowsRead.get(s);
      rows.add(known != null && now - known.at() <= RECENT.toMillis() ? new Row(s, null, null, null)
          : new Row(s, CompletableFuture.supplyAsync(() -> registry.versions(s), pool),
              CompletableFuture.supplyAsync(() -> registry.latest(s), pool),
              CompletableFuture.supplyAsync(() -> registry.config(s), pool)));
    }
    ObjectNode out = JSON.createObjectNode().put("page", page.page()).put("pages", page.pages())
        .put("total", page.total()).put("size", PAGE_SIZE);
    ArrayNode list = out.putArray("subjects");
    for (Row r : rows) {
      if (r.versions() == null) {
        list.add(rowsRead.get(r.name()).row().deepCopy());
        continue;
      }
      ObjectNode o = list.addObject().put("name", r.name());
      List<Integer> versions = join(r.versions());
      ArrayNode vs = o.putArray("versions");
      versions.forEach(vs::add);
      join(r.latest()).ifPresent(v -> o.put("type", v.schema().type()).put("latest", v.version()).put("id", v.id()));
      o.put("compatibility", join(r.config()).path("compatibilityLevel").asText());
      rowsRead.put(r.name(), new Read(o.deepCopy(), now));
    }
    // Subjects gone from the registry leave: what is kept follows what the registry holds.
    if (rowsRead.size() > all.size()) {
      rowsRead.keySet().retainAll(new java.util.HashSet<>(all));
    }
    return out;
  }

  /** A subject: its versions, compatibility and latest schema; empty when the registry does not know it. */
  public Optional<ObjectNode> subject(String name) {
    List<Integer> versions = registry.versions(name);
    if (versions.isEmpty()) {
      return Optional.empty();
    }
    JsonNode config = registry.config(name);
    ObjectNode out = JSON.createObjectNode().put("name", name)
        .put("compatibility", config.path("compatibilityLevel").asText());
    if (config.has("compatibilityPolicy")) {
      out.put("compatibilityPolicy", config.path("compatibilityPolicy").asText());
    }
    ArrayNode vs = out.putArray("versions");
    versions.forEach(vs::add);
    ArrayNode levels = out.putArray("levels");
    for (CompatibilityLevel l : CompatibilityLevel.values()) {
      levels.add(l.name());
    }
    registry.latest(name).ifPresent(v -> out.set("latest", version(v)));
    return Optional.of(out);
  }

  /** One version: its id, format, references and schema, pretty-printed; empty when there is no such version. */
  public Optional<ObjectNode> version(String subject, String version) {
    return registry.version(subject, version).map(SchemaConsole::version);
  }

  private static ObjectNode version(SubjectVersion v) {
    ObjectNode o = JSON.createObjectNode().put("version", v.version()).put("id", v.id()).put("type", v.schema().type())
        .put("schema", SideBySide.pretty(v.schema().schema()));
    ArrayNode refs = o.putArray("references");
    v.schema().references().forEach(r -> refs.addObject().put("name", r.name()).put("subject", r.subject())
        .put("version", r.version()));
    return o;
  }

  /** Two versions side by side; empty when either does not exist. */
  public Optional<ObjectNode> diff(String subject, String left, String right) {
    Optional<SubjectVersion> l = registry.version(subject, left);
    Optional<SubjectVersion> r = registry.version(subject, right);
    if (l.isEmpty() || r.isEmpty()) {
      return Optional.empty();
    }
    ObjectNode out = JSON.createObjectNode().put("subject", subject).put("left", l.get().version())
        .put("right", r.get().version());
    ArrayNode rows = out.putArray("rows");
    for (SideBySide.Row row : SideBySide.diff(SideBySide.pretty(l.get().schema().schema()),
        SideBySide.pretty(r.get().schema().schema()))) {
      ObjectNode o = rows.addObject().put("kind", row.kind().name().toLowerCase(Locale.ROOT));
      if (row.left() != null) {
        o.put("leftNumber", row.leftNumber()).put("left", row.left());
      }
      if (row.right() != null) {
        o.put("rightNumber", row.rightNumber()).put("right", row.right());
      }
    }
    return Optional.of(out);
  }

  /**
   * Sets the subject's compatibility and answers the configuration the registry then reports.
   *
   * @throws IllegalArgumentException for a level that is not one
   */
  public ObjectNode setCompatibility(String subject, String level) {
    CompatibilityLevel l = CompatibilityLevel.forName(level).orElseThrow(() -> new IllegalArgumentException(
        "compatibility must be one of " + java.util.Arrays.toString(CompatibilityLevel.values()) + ", got " + level));
    registry.setCompatibility(subject, l.name());
    rowsRead.remove(subject);
    return JSON.createObjectNode().put("name", subject).put("compatibility",
        registry.config(subject).path("compatibilityLevel").asText());
  }

  /**
   * A candidate checked against the subject: the registry's own answer against its latest version, each
   * incompatibility as the registry words it, and {@code sluice schema check}'s report (every mode, the rollout
   * order, good-practice warnings).
   *
   * @throws IllegalArgumentException for an unknown format or a candidate that does not parse
   * @throws IOException when the registry cannot be read
   */
  public ObjectNode check(String subject, String schema, String type) throws IOException {
    SchemaType t = SchemaType.forName(type == null || type.isBlank() ? "AVRO" : type).orElseThrow(
        () -> new IllegalArgumentException("type must be AVRO, PROTOBUF or JSON, got " + type));
    ObjectNode out = JSON.createObjectNode().put("subject", subject).put("type", t.name());
    SchemaRegistryClient.Compatibility answer = registry.versions(subject).isEmpty()
        ? new SchemaRegistryClient.Compatibility(true, List.of())
        : registry.compatibility(subject, "latest", new SchemaRegistryClient.Schema(t.name(), schema,
            registry.latest(subject).map(v -> v.schema().references()).orElse(List.of())));
    ObjectNode reg = out.putObject("registry").put("compatible", answer.compatible());
    ArrayNode messages = reg.putArray("messages");
    answer.messages().forEach(messages::add);
    EvolutionReport report;
    try {
      report = EvolutionCheck.against(url, options).check(subject, schema, t, null);
    } catch (InvalidSchemaException e) {
      out.put("invalid", e.getMessage());
      return out;
    }
    ObjectNode r = out.putObject("report").put("level", report.subjectLevel().name())
        .put("policy", report.policy().name()).put("compatible", report.compatible())
        .put("rollout", report.rollout());
    ArrayNode modes = r.putArray("modes");
    for (EvolutionReport.Verdict v : report.verdicts()) {
      ObjectNode m = modes.addObject().put("level", v.level().name()).put("compatible", v.compatible());
      if (!v.compatible()) {
        m.put("againstVersion", v.againstVersion());
        ArrayNode ps = m.putArray("problems");
        v.problems().forEach(p -> ps.addObject().put("kind", p.kind()).put("path", p.path())
            .put("description", p.description()));
      }
    }
    ArrayNode warnings = r.putArray("warnings");
    report.warnings().forEach(warnings::add);
    return out;
  }

}
