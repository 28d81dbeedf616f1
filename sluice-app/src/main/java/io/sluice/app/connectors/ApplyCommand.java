package io.sluice.app.connectors;

import io.sluice.app.cli.CommandError;
import io.sluice.app.cli.ExitCode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.secrets.SecretMask;
import io.sluice.ops.connectors.ConfigChange;
import io.sluice.ops.connectors.ConfigDiff;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice connectors apply -f FILE…}: creates each connector or updates its config, after Connect validated it,
 * showing what changes. A file is JSON or YAML, either Connect's create body ({@code {"name": …, "config": {…}}}) or
 * the config alone with its {@code name}; a folder stands for its {@code .json}, {@code .yaml} and {@code .yml} files
 * in name order, as {@code kubectl apply -f DIR} reads one. Every connector is validated before the first is written:
 * one refusal changes nothing, so a set of connectors that belong together (a source and its sinks) is applied whole
 * or not at all, and one process does what a shell loop of applies did with a JVM each.
 */
@Command(name = "apply", mixinStandardHelpOptions = true,
    description = "Create or update connectors from JSON or YAML files (or the files of a folder): every one validated "
        + "first, with a diff of what changes; one refused, none changed.")
final class ApplyCommand extends ConnectorsBase {
  @Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE",
      description = "connector JSON or YAML, or a folder of them; repeat for more")
  List<Path> files;

  @Option(names = "--dry-run", description = "validate and show the diff, change nothing")
  boolean dryRun;

  @Option(names = "--resend-secrets", description = "update even when only secrets may differ (a Sluice worker stores "
      + "them as references, which cannot be compared with the file)")
  boolean resendSecrets;

  private static final Pattern CONNECTOR_FILE = Pattern.compile("(?i).+\\.(json|ya?ml)");

  /** The connector a file describes. */
  record Wanted(String name, Map<String, String> config) {}

  static Wanted read(Path file) throws IOException {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    ObjectMapper mapper = name.endsWith(".yaml") || name.endsWith(".yml") ? new ObjectMapper(new YAMLFactory())
        : new ObjectMapper();
    JsonNode root;
    try {
      root = mapper.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new IllegalArgumentException(file + " is not valid " + (mapper.getFactory() instanceof YAMLFactory
          ? "YAML" : "JSON") + ": " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(file + ": expected an object with name and config");
    }
    JsonNode config = root.has("config") ? root.path("config") : root;
    if (!config.isObject()) {
      throw new IllegalArgumentException(file + ": config must be an object of keys and values");
    }
    String connector = root.path("name").asText(config.path("name").asText(""));
    if (connector.isBlank()) {
      throw new IllegalArgumentException(file + ": the connector needs a name (\"name\": …)");
    }
    Map<String, String> out = new LinkedHashMap<>();
    config.fields().forEachRemaining(e -> {
      if (e.getValue().isContainerNode()) {
        throw new IllegalArgumentException(file + ": " + e.getKey() + " must be a single value, not a list or object");
      }
      // Connect configs are strings; YAML's 2000 and true are meant as "2000" and "true".
      out.put(e.getKey(), e.getValue().isNull() ? "" : e.getValue().asText());
    });
    out.putIfAbsent("name", connector);
    if (!out.containsKey("connector.class")) {
      throw new IllegalArgumentException(file + ": connector.class is missing");
    }
    return new Wanted(connector, out);
  }

  /**
   * The refusal as people read it: one line per error, under its key. A key with several errors (a PostgreSQL source's
   * columns that the pipeline cannot carry, say, each named on {@code column.exclude.list}) is written once, with its
   * errors one per line beneath it.
   */
  static List<String> refusal(String name, List<ConfigChange.Problem> problems) {
    List<String> lines = new java.util.ArrayList<>();
    lines.add("error: Kafka Connect refused the config of " + name + " (" + problems.size()
        + " error(s)); nothing was changed:");
    Map<String, List<String>> byKey = new LinkedHashMap<>();
    problems.forEach(p -> byKey.computeIfAbsent(p.key(), k -> new java.util.ArrayList<>()).add(p.error()));
    byKey.forEach((key, errors) -> {
      if (errors.size() == 1) {
        lines.add("  " + key + ": " + errors.get(0));
      } else {
        lines.add("  " + key + " (" + errors.size() + " errors):");
        errors.forEach(e -> lines.add("    " + e));
      }
    });
    return lines;
  }

  /** The worker's warnings (HTTP {@code Warning} on its validate answer), as JSON output lists them. */
  private static void warnings(ObjectNode o, ConfigChange change) {
    ArrayNode list = o.putArray("warnings");
    change.warnings().forEach(list::add);
  }

  /**
   * The connectors {@code paths} name, in order: each file, and each folder's JSON and YAML files by name. A connector
   * named twice is refused, since which config would win depends on the order of the files.
   */
  static List<Wanted> readAll(List<Path> paths) throws IOException {
    List<Wanted> all = new ArrayList<>();
    Map<String, Path> from = new HashMap<>();
    for (Path path : paths) {
      List<Path> files;
      if (Files.isDirectory(path)) {
        try (Stream<Path> list = Files.list(path)) {
          files = list.filter(f -> Files.isRegularFile(f) && CONNECTOR_FILE.matcher(f.getFileName().toString())
              .matches()).sorted().toList();
        }
        if (files.isEmpty()) {
          throw new IllegalArgumentException(path + " holds no connector file (.json, .yaml, .yml)");
        }
      } else {
        files = List.of(path);
      }
      for (Path file : files) {
        Wanted w = read(file);
        Path earlier = from.putIfAbsent(w.name(), file);
        if (earlier != null) {
          throw new IllegalArgumentException("connector " + w.name() + " is in both " + earlier + " and " + file);
        }
        all.add(w);
      }
    }
    return all;
  }

  @Override
  int execute() throws IOException {
    List<Wanted> wanted = readAll(files);
    List<ConfigChange> changes = new ArrayList<>();
    for (Wanted w : wanted) {
      changes.add(ConfigChange.plan(connect(), w.name(), w.config()));
    }
    if (!output.json()) {
      changes.forEach(c -> c.warnings().forEach(w -> err.println("warning: " + (changes.size() > 1 ? c.name() + ": "
          : "") + w)));
    }
    List<ConfigChange> refused = changes.stream().filter(ConfigChange::refused).toList();
    if (!refused.isEmpty()) {
      if (output.json()) {
        ArrayNode all = JSON.createArrayNode();
        for (ConfigChange change : changes) {
          ObjectNode o = all.addObject().put("name", change.name())
              .put("action", change.refused() ? "refused" : "skipped");
          warnings(o, change);
          ArrayNode errors = o.putArray("errors");
          change.problems().forEach(p -> errors.addObject().put("key", p.key()).put("error", p.error()));
        }
        printJson(all.size() == 1 ? all.get(0) : all);
      } else {
        refused.forEach(change -> refusal(change.name(), change.problems()).forEach(err::println));
        if (changes.size() > 1) {
          err.println("none of the " + changes.size() + " connectors was changed");
        }
      }
      return ExitCode.REFUSED.code();
    }
    ArrayNode json = JSON.createArrayNode();
    List<String> applied = new ArrayList<>();
    for (ConfigChange change : changes) {
      ConfigChange.Action action = change.action(resendSecrets);
      List<ConfigDiff.Line> lines = action != ConfigChange.Action.UNCHANGED ? change.diff().lines() : List.of();
      if (!dryRun) {
        try {
          change.apply(connect(), resendSecrets);
        } catch (RuntimeException e) {
          if (applied.isEmpty()) {
            throw e;
          }
          // The ones before were written: say which, so that the file set can be applied again once the cause is gone.
          throw CommandError.partial(change.name() + " was not applied (" + (e.getMessage() == null ? e.toString()
              : e.getMessage()) + ") after " + String.join(", ", applied) + "; applying the same files again "
              + "leaves those unchanged and completes the rest", e);
        }
        if (action != ConfigChange.Action.UNCHANGED) {
          applied.add(change.name() + " " + (action == ConfigChange.Action.CREATE ? "created" : "updated"));
        }
      }
      if (output.json()) {
        ObjectNode o = json.addObject().put("name", change.name())
            .put("action", action.name().toLowerCase(Locale.ROOT)).put("dryRun", dryRun);
        warnings(o, change);
        ArrayNode list = o.putArray("changes");
        for (ConfigDiff.Line l : lines) {
          list.addObject().put("kind", l.kind().name().toLowerCase(Locale.ROOT)).put("key", l.key())
              .put("before", SecretMask.shown(l.key(), l.before())).put("after", SecretMask.shown(l.key(), l.after()));
        }
        continue;
      }
      String verb = switch (action) {
        case CREATE -> dryRun ? "would be created" : "created";
        case UPDATE -> dryRun ? "would be updated" : "updated";
        case UNCHANGED -> "unchanged";
      };
      out.println("connector " + change.name() + " " + verb + (lines.isEmpty() ? "" : ":"));
      lines.forEach(l -> out.println(l.render()));
      if (action == ConfigChange.Action.UNCHANGED && !change.diff().isEmpty()) {
        out.println("  (secrets not compared: the worker keeps them as references; --resend-secrets sends them again)");
      }
    }
    if (output.json()) {
      // One file answers with its object, as before; several with the list of them.
      printJson(json.size() == 1 ? json.get(0) : json);
    }
    return ExitCode.OK.code();
  }
}
