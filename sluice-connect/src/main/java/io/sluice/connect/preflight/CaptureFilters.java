package io.sluice.connect.preflight;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Which tables and columns a Debezium relational source captures, matched as Debezium matches its filter settings:
 * each a comma-separated list of regular expressions ({@code \,} for a comma inside one), case-insensitive, matching
 * the whole name; schemas by name, tables by {@code schema.table}, columns by {@code schema.table.column}; an include
 * list and an exclude list of one level both apply (Debezium refuses a config that sets both). A binlog source
 * (MariaDB, MySQL) names its databases where PostgreSQL names schemas ({@link #ofBinlog}).
 */
record CaptureFilters(List<Pattern> schemaInclude, List<Pattern> schemaExclude, List<Pattern> tableInclude,
    List<Pattern> tableExclude, List<Pattern> columnInclude, List<Pattern> columnExclude) {
  static final String SCHEMA_INCLUDE = "schema.include.list";
  static final String SCHEMA_EXCLUDE = "schema.exclude.list";
  static final String TABLE_INCLUDE = "table.include.list";
  static final String TABLE_EXCLUDE = "table.exclude.list";
  static final String COLUMN_INCLUDE = "column.include.list";
  static final String COLUMN_EXCLUDE = "column.exclude.list";
  static final String DATABASE_INCLUDE = "database.include.list";
  static final String DATABASE_EXCLUDE = "database.exclude.list";

  /** The filters of a source config; a list that is not valid regular expressions throws (Connect reports it). */
  static CaptureFilters of(Map<String, String> config) {
    return new CaptureFilters(patterns(config.get(SCHEMA_INCLUDE)), patterns(config.get(SCHEMA_EXCLUDE)),
        patterns(config.get(TABLE_INCLUDE)), patterns(config.get(TABLE_EXCLUDE)),
        patterns(config.get(COLUMN_INCLUDE)), patterns(config.get(COLUMN_EXCLUDE)));
  }

  /** The filters of a MariaDB or MySQL source config: databases at the schemas' level, {@code db.table}, … */
  static CaptureFilters ofBinlog(Map<String, String> config) {
    return new CaptureFilters(patterns(config.get(DATABASE_INCLUDE)), patterns(config.get(DATABASE_EXCLUDE)),
        patterns(config.get(TABLE_INCLUDE)), patterns(config.get(TABLE_EXCLUDE)),
        patterns(config.get(COLUMN_INCLUDE)), patterns(config.get(COLUMN_EXCLUDE)));
  }

  boolean capturesTable(String schema, String table) {
    String id = schema + "." + table;
    return allows(schemaInclude, schemaExclude, schema) && allows(tableInclude, tableExclude, id);
  }

  boolean capturesColumn(String schema, String table, String column) {
    return allows(columnInclude, columnExclude, schema + "." + table + "." + column);
  }

  private static boolean allows(List<Pattern> include, List<Pattern> exclude, String name) {
    if (!include.isEmpty() && !matchesAny(include, name)) {
      return false;
    }
    return !matchesAny(exclude, name);
  }

  static boolean matchesAny(List<Pattern> patterns, String name) {
    for (Pattern p : patterns) {
      if (p.matcher(name).matches()) {
        return true;
      }
    }
    return false;
  }

  /**
   * A comma-separated list of regular expressions as Debezium splits it: a comma preceded by a backslash belongs to the
   * expression; blanks around each are dropped. Null or blank: no patterns.
   *
   * @throws PatternSyntaxException for an expression that does not compile
   */
  static List<Pattern> patterns(String list) {
    List<Pattern> out = new ArrayList<>();
    if (list == null || list.isBlank()) {
      return out;
    }
    StringBuilder current = new StringBuilder();
    for (int i = 0; i < list.length(); i++) {
      char ch = list.charAt(i);
      if (ch == '\\' && i + 1 < list.length() && list.charAt(i + 1) == ',') {
        current.append(',');
        i++;
      } else if (ch == ',') {
        add(out, current);
        current.setLength(0);
      } else {
        current.append(ch);
      }
    }
    add(out, current);
    return out;
  }

  private static void add(List<Pattern> out, StringBuilder regex) {
    String r = regex.toString().trim();
    if (!r.isEmpty()) {
      out.add(Pattern.compile(r, Pattern.CASE_INSENSITIVE));
    }
  }
}
