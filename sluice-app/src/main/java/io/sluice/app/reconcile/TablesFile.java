package io.sluice.app.reconcile;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A YAML file of many tables to reconcile, for {@code sluice reconcile --file}:
 *
 * <pre>
 * source: jdbc:postgresql://db1:5432/app?user=ro&amp;password=...
 * sink: jdbc:mariadb://db2:3306/app?user=ro&amp;password=...
 * lag-window: 30s
 * tables:
 *   - table: public.orders
 *     sink-table: orders
 *     key: [id]
 *     exclude: [updated_by]
 *   - table: public.customers
 *     where: "region = 'eu'"
 * </pre>
 *
 * Flags given on the command line win over the file's top-level values.
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public record TablesFile(
    String source, String sink,
    @JsonProperty("lag-window") String lagWindow,
    @JsonProperty("limit-rows") Integer limitRows,
    List<Entry> tables) {

  /** One table pair. */
  public record Entry(String table, @JsonProperty("sink-table") String sinkTable, List<String> key, List<String> columns,
      List<String> exclude, String where) {}

  static TablesFile read(Path file) throws IOException {
    return parse(file.toString(), java.nio.file.Files.readString(file));
  }

  /** Reads the text of a tables file; {@code name} says where it came from in errors. */
  public static TablesFile parse(String name, String yaml) throws IOException {
    TablesFile parsed = YAML.readValue(yaml, TablesFile.class);
    if (parsed == null || parsed.tables() == null || parsed.tables().isEmpty()) {
      throw new IOException(name + ": no tables listed");
    }
    for (Entry e : parsed.tables()) {
      if (e == null || e.table() == null) {
        throw new IOException(name + ": every entry of tables needs 'table'");
      }
    }
    return parsed;
  }

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
}
