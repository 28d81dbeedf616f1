package io.sluice;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.alerts.config.ConfigLoader;
import io.sluice.app.reconcile.TablesFile;
import io.sluice.metrics.promql.parser.ParseException;
import io.sluice.metrics.promql.parser.Parser;
import io.sluice.metrics.rules.RuleFile;
import io.sluice.schema.InvalidSchemaException;
import io.sluice.schema.SchemaFormats;
import io.sluice.schema.SchemaProvider;
import io.sluice.schema.SchemaType;
import io.sluice.template.Template;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterAll;

/**
 * Every parser a user feeds text to, fuzzed with Jazzer (coverage-guided): PromQL, Go templates, rule files, the
 * router's configuration, Avro, Protobuf and JSON Schema, and reconcile's tables file. Each may refuse an input only
 * with the exception its server turns into a 4xx (or its command into a clear message); anything else that escapes
 * (a NullPointerException, a ClassCastException, a StackOverflowError) is a finding, which Jazzer saves under
 * {@code src/test/resources/io/sluice/ParserFuzzTestInputs/} to be replayed in every later run.
 *
 * <p>The class sits in {@code io.sluice} because Jazzer instruments the test's package and those below it. A
 * bounded run is part of the tests; {@code bench/fuzz} runs it again and again, each run going on from the corpus the
 * last one grew (under {@code .cifuzz-corpus/}).
 */
class ParserFuzzTest {
  private static final String[] NAMES = {"promql", "template", "rules", "router", "avro", "protobuf", "jsonschema",
      "reconcile"};
  private static final AtomicLongArray TRIED = new AtomicLongArray(NAMES.length);
  private static final Map<SchemaType, SchemaProvider> SCHEMAS = SchemaFormats.all();
  private static final Path BASE = Path.of("target");

  @FuzzTest(maxDuration = "15s")
  void everyParserRefusesBadTextOnlyWithItsOwnError(FuzzedDataProvider data) {
    int which = data.consumeInt(0, NAMES.length - 1);
    String text = data.consumeRemainingAsString();
    TRIED.incrementAndGet(which);
    try {
      switch (which) {
        case 0 -> Parser.parse(text);
        case 1 -> Template.parse("fuzz", text, Map.of());
        case 2 -> RuleFile.parse("fuzz.yml", text);
        case 3 -> ConfigLoader.parse(text, BASE, Map.of());
        case 4 -> SCHEMAS.get(SchemaType.AVRO).parse(text, List.of(), List.of());
        case 5 -> SCHEMAS.get(SchemaType.PROTOBUF).parse(text, List.of(), List.of());
        case 6 -> SCHEMAS.get(SchemaType.JSON).parse(text, List.of(), List.of());
        default -> TablesFile.parse("fuzz.yaml", text);
      }
    } catch (ParseException | Template.TemplateException | RuleFile.RuleFileException
        | io.sluice.alerts.config.ConfigException | InvalidSchemaException | IOException refused) {
      // The parser's own refusal: a 4xx or a clear message, which is what bad text should get.
    }
  }

  @AfterAll
  static void report() throws IOException {
    StringBuilder sb = new StringBuilder();
    long total = 0;
    for (int i = 0; i < NAMES.length; i++) {
      sb.append(NAMES[i]).append(' ').append(TRIED.get(i)).append('\n');
      total += TRIED.get(i);
    }
    sb.append("total ").append(total).append("\nunexpected 0\n");
    Files.createDirectories(BASE);
    Files.writeString(BASE.resolve("fuzz-counts.txt"), sb.toString());
    Files.writeString(BASE.resolve("fuzz-counts-all.txt"), sb.toString(), java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
    System.out.print("inputs tried per parser (no unexpected failure):\n" + sb);
  }
}
