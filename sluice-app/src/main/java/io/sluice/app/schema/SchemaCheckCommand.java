package io.sluice.app.schema;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sluice.app.cli.ClusterOptions;
import io.sluice.app.cli.CommandError;
import io.sluice.app.cli.ExitCode;
import io.sluice.client.HttpTransport;
import io.sluice.ops.evolution.EvolutionCheck;
import io.sluice.ops.evolution.EvolutionReport;
import io.sluice.registry.client.RegistryApiException;
import io.sluice.schema.InvalidSchemaException;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sluice schema check}: what registering a schema would do, before it is registered. Exit code 0 when the
 * subject's mode accepts it, 1 when it does not; errors end with {@link ExitCode}'s codes (2 a file or flag that is
 * wrong, 3 the registry refused, 4 it is out of reach).
 */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = {"Check a new schema against a subject before registering it: the verdict under the subject's mode "
        + "and every other mode, each incompatibility with its path, the safe rollout order and good-practice "
        + "warnings.", "Exit 0 compatible, 1 incompatible; every exit code: sluice --help."})
public final class SchemaCheckCommand implements Callable<Integer> {
  static final int COMPATIBLE = ExitCode.OK.code();
  static final int INCOMPATIBLE = ExitCode.NO.code();

  @Mixin ClusterOptions cluster;
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--subject", required = true, description = "subject to check against")
  String subject;

  @Option(names = "--file", required = true, description = "the new schema (.avsc, .proto or .json)")
  Path file;

  @Option(names = "--type", description = "AVRO, PROTOBUF or JSON (default: from the file extension)")
  String type;

  @Option(names = "--reference", paramLabel = "NAME=SUBJECT:VERSION",
      description = "a reference of the new schema, repeatable (default: the references of the latest version)")
  List<String> references;

  @Option(names = {"-o", "--output"}, description = "table (default) or json")
  String output = "table";

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try {
      SchemaType schemaType = type != null
          ? SchemaType.forName(type).orElseThrow(() -> new IllegalArgumentException("unknown --type " + type))
          : EvolutionCheck.typeOfFile(file.getFileName().toString()).orElseThrow(() -> new IllegalArgumentException(
              "cannot tell the format of " + file + " from its name; pass --type AVRO|PROTOBUF|JSON"));
      String text = Files.readString(file);
      EvolutionReport report = EvolutionCheck.against(cluster.registryUrl(), cluster.clientOptions())
          .check(subject, text, schemaType, parseReferences());
      if ("json".equals(output)) {
        out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(json(report)));
      } else {
        print(out, report);
      }
      out.flush();
      return report.compatible() ? COMPATIBLE : INCOMPATIBLE;
    } catch (InvalidSchemaException e) {
      throw CommandError.usage(file + " is not a valid schema: " + e.getMessage());
    } catch (IOException e) {
      // The check says the registry's refusals and its silence as IOExceptions, as it does reading the file.
      if (e.getCause() instanceof HttpTransport.UnreachableException) {
        throw CommandError.unreachable(e.getMessage(), e);
      }
      if (e.getCause() instanceof RegistryApiException) {
        throw CommandError.refused(e.getMessage());
      }
      throw CommandError.usage(e.getMessage());
    } catch (IllegalArgumentException e) {
      throw CommandError.usage(e.getMessage());
    }
  }

  private List<SchemaReference> parseReferences() {
    if (references == null) {
      return null;
    }
    List<SchemaReference> out = new ArrayList<>();
    for (String r : references) {
      int eq = r.indexOf('=');
      int colon = r.lastIndexOf(':');
      if (eq <= 0 || colon <= eq) {
        throw new IllegalArgumentException("--reference must be NAME=SUBJECT:VERSION, got " + r);
      }
      String v = r.substring(colon + 1);
      out.add(new SchemaReference(r.substring(0, eq), r.substring(eq + 1, colon),
          v.equals("latest") ? -1 : Integer.parseInt(v)));
    }
    return out;
  }

  private static void print(PrintWriter out, EvolutionReport r) {
    out.printf("Subject %s: %s, mode %s, policy %s; candidate %s%n", r.subject(),
        r.versions().isEmpty() ? "no versions yet" : r.versions().size() + " version(s) " + r.versions(),
        r.subjectLevel(), r.policy(), r.type());
    out.println();
    out.printf("%-28s %-13s %s%n", "MODE", "VERDICT", "BREAKS AGAINST");
    for (EvolutionReport.Verdict v : r.verdicts()) {
      String mode = v.level() + (v.level() == r.subjectLevel() ? " (subject)" : "");
      out.printf("%-28s %-13s %s%n", mode, v.compatible() ? "compatible" : "INCOMPATIBLE",
          v.compatible() ? "-" : "version " + v.againstVersion());
    }
    EvolutionReport.Verdict own = r.verdict(r.subjectLevel());
    EvolutionReport.Verdict shown = !own.compatible() ? own
        : r.verdicts().stream().filter(v -> !v.compatible()).findFirst().orElse(null);
    if (shown != null) {
      out.println();
      out.printf("Incompatibilities under %s (against version %d):%n", shown.level(), shown.againstVersion());
      for (EvolutionReport.Problem p : shown.problems()) {
        out.printf("  %s: %s [%s]%n", p.path().isEmpty() ? "(schema)" : p.path(), p.description(), p.kind());
      }
    }
    out.println();
    out.println("Rollout: " + r.rollout());
    if (!r.warnings().isEmpty()) {
      out.println();
      out.println("Warnings (compatible, but against good practice):");
      r.warnings().forEach(w -> out.println("  - " + w));
    }
    out.println();
    out.println(r.compatible() ? "Result: compatible under " + r.subjectLevel() + " - safe to register"
        : "Result: INCOMPATIBLE under " + r.subjectLevel() + " - registration would be refused (409)");
  }

  private static Map<String, Object> json(EvolutionReport r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("subject", r.subject());
    m.put("schemaType", r.type().name());
    m.put("versions", r.versions());
    m.put("compatibilityLevel", r.subjectLevel().name());
    m.put("compatibilityPolicy", r.policy().name());
    m.put("compatible", r.compatible());
    Map<String, Object> modes = new LinkedHashMap<>();
    for (EvolutionReport.Verdict v : r.verdicts()) {
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("compatible", v.compatible());
      if (!v.compatible()) {
        one.put("againstVersion", v.againstVersion());
        one.put("incompatibilities", v.problems().stream().map(p -> Map.of("kind", p.kind(), "path", p.path(),
            "description", p.description())).toList());
      }
      modes.put(v.level().name(), one);
    }
    m.put("modes", modes);
    m.put("rollout", r.rollout());
    m.put("warnings", r.warnings());
    return m;
  }
}
