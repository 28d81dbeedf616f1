package io.sluice.app.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintStream;
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

  /** Prints a JSON tree (or anything Jackson writes), indented. */
  public static void printJson(PrintStream out, Object tree) {
    try {
      out.println(JSON.writeValueAsString(tree));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
