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
record TablesFile(
    String source, String sink,
    @JsonProperty("lag-window") String lagWindow,
    @JsonProperty("limit-rows") Integer limitRows,
    List<Entry> tables) {

  /** One table pair. */
  record Entry(String table, @JsonProperty("sink-table") String sinkTable, List<String> key, List<String> columns,
      List<String> exclude, String where) {}

  static TablesFile read(Path file) throws IOException {
    TablesFile parsed = new ObjectMapper(new YAMLFactory()).readValue(file.toFile(), TablesFile.class);
    if (parsed.tables() == null || parsed.tables().isEmpty()) {
      throw new IOException(file + ": no tables listed");
    }
    for (Entry e : parsed.tables()) {
      if (e.table() == null) {
        throw new IOException(file + ": every entry of tables needs 'table'");
      }
    }
    return parsed;
  }
}
