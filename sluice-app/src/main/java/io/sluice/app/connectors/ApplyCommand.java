package io.sluice.app.connectors;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice connectors apply -f FILE}: creates the connector or updates its config, after Connect validated it,
 * showing what changes. The file is JSON or YAML, either Connect's create body ({@code {"name": …, "config": {…}}})
 * or the config alone with its {@code name}.
 */
@Command(name = "apply", mixinStandardHelpOptions = true,
    description = "Create or update a connector from a JSON or YAML file: validated first, with a diff of what changes.")
final class ApplyCommand extends ConnectorsBase {
  @Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE", description = "connector JSON or YAML")
  Path file;

  @Option(names = "--dry-run", description = "validate and show the diff, change nothing")
  boolean dryRun;

  @Option(names = "--resend-secrets", description = "update even when only secrets may differ (a Sluice worker stores "
      + "them as references, which cannot be compared with the file)")
  boolean resendSecrets;

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

  @Override
  int execute() throws IOException {
    Wanted wanted = read(file);
    ConfigChange change = ConfigChange.plan(connect(), wanted.name(), wanted.config());
    if (!output.json()) {
      change.warnings().forEach(w -> err.println("warning: " + w));
    }
    if (change.refused()) {
      if (output.json()) {
        ObjectNode o = JSON.createObjectNode().put("name", wanted.name()).put("action", "refused");
        warnings(o, change);
        ArrayNode errors = o.putArray("errors");
        change.problems().forEach(p -> errors.addObject().put("key", p.key()).put("error", p.error()));
        printJson(o);
      } else {
        refusal(wanted.name(), change.problems()).forEach(err::println);
      }
      return ExitCode.REFUSED.code();
    }
    ConfigChange.Action action = change.action(resendSecrets);
    List<ConfigDiff.Line> lines = action != ConfigChange.Action.UNCHANGED ? change.diff().lines() : List.of();
    if (!dryRun) {
      change.apply(connect(), resendSecrets);
    }
    if (output.json()) {
      ObjectNode o = JSON.createObjectNode().put("name", wanted.name())
          .put("action", action.name().toLowerCase(Locale.ROOT)).put("dryRun", dryRun);
      warnings(o, change);
      ArrayNode changes = o.putArray("changes");
      for (ConfigDiff.Line l : lines) {
        changes.addObject().put("kind", l.kind().name().toLowerCase(Locale.ROOT)).put("key", l.key())
            .put("before", SecretMask.shown(l.key(), l.before())).put("after", SecretMask.shown(l.key(), l.after()));
      }
      printJson(o);
      return ExitCode.OK.code();
    }
    String verb = switch (action) {
      case CREATE -> dryRun ? "would be created" : "created";
      case UPDATE -> dryRun ? "would be updated" : "updated";
      case UNCHANGED -> "unchanged";
    };
    out.println("connector " + wanted.name() + " " + verb + (lines.isEmpty() ? "" : ":"));
    lines.forEach(l -> out.println(l.render()));
    if (action == ConfigChange.Action.UNCHANGED && !change.diff().isEmpty()) {
      out.println("  (secrets not compared: the worker keeps them as references; --resend-secrets sends them again)");
    }
    return ExitCode.OK.code();
  }
}
