package io.sluice.app.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
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

  /** Writes part of a JSON document. */
  @FunctionalInterface
  public interface JsonPart {
    void write(JsonGenerator json) throws IOException;
  }

  /**
   * A JSON array printed element by element as they come, laid out as {@link #printJson} lays out a tree: for output
   * too long to hold (a whole topic). The document begins with the first element, or at {@link #finish}, so a command
   * that fails before it has one prints nothing; one that fails later leaves it visibly unfinished.
   */
  public static final class StreamedArray {
    private final PrintStream out;
    private final JsonGenerator json;
    private final JsonPart opening;
    private boolean started;

    /** {@code opening} writes what comes before the array and opens it, e.g. an object's first fields. */
    public StreamedArray(PrintStream out, JsonPart opening) {
      this.out = out;
      this.opening = opening;
      try {
        this.json = JSON.createGenerator(out).disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
            .disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** A bare array. */
    public StreamedArray(PrintStream out) {
      this(out, JsonGenerator::writeStartArray);
    }

    public void add(JsonNode element) {
      try {
        begin();
        json.writeTree(element);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Closes the array, then {@code closing} writes the rest of the document; a newline ends it. */
    public void finish(JsonPart closing) {
      try {
        begin();
        json.writeEndArray();
        closing.write(json);
        json.flush();
        out.println();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private void begin() throws IOException {
      if (!started) {
        opening.write(json);
        started = true;
      }
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
