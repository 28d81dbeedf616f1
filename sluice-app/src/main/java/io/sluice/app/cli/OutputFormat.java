package io.sluice.app.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import picocli.CommandLine.Option;

/** {@code -o table} (the default, for people) or {@code -o json} (for scripts): mixed into the operator commands. */
public final class OutputFormat {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** The formats. */
  public enum Format { table, json }

  @Option(names = {"-o", "--output"}, paramLabel = "table|json", defaultValue = "table",
      description = "table for people (default), json for scripts")
  Format format = Format.table;

  public boolean json() {
    return format == Format.json;
  }

  /**
   * A JSON document written to {@code out} as it is produced, laid out as {@link #printJson} lays it out: for output
   * too long to hold (a whole topic). Closing it does not close {@code out}; end the document with a newline.
   */
  public static JsonGenerator jsonGenerator(PrintStream out) {
    try {
      // A document cut short by an error stays visibly unfinished rather than closed as if complete.
      return JSON.createGenerator(out).disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
          .disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Prints a JSON tree (or anything Jackson writes), indented. */
  public static void printJson(PrintStream out, Object tree) {
    try {
      out.println(JSON.writeValueAsString(tree));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
