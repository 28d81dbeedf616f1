package io.sluice.connect.preflight;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.StringJoiner;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Before a PostgreSQL source is created, updated or validated: a warning, never a refusal, for
 * {@code publication.autocreate.mode=filtered}. With it Debezium reads {@code pg_publication_tables} on its replication
 * connection at every task start, before it streams. From PostgreSQL 16 that view's {@code pg_get_publication_tables()}
 * opens each published table that has no column list (to list its columns: {@code table_open} in
 * {@code pg_publication.c}, read in the 16 and 18 sources), so the table's current descriptor is cached in the
 * walsender, which then decodes rows written before a rewriting {@code ALTER TABLE … ALTER COLUMN … TYPE} with it and
 * crashes (signal 11, seen on 17.6, 17.11 and 18.1); the postmaster restarts every backend. 15 is warned about too
 * (column lists came with it; its source was not at hand to rule it out). The other modes read only
 * {@code pg_publication.puballtables} of an existing publication, which is safe.
 */
public final class PublicationCheck {
  public static final String MODE = "publication.autocreate.mode";
  public static final String NAME = "publication.name";
  /** Debezium's default publication name. */
  static final String DEFAULT_NAME = "dbz_publication";
  /** The first major version warned about (see the class comment). */
  static final int FIRST_AFFECTED = 15;

  private PublicationCheck() {}

  /**
   * The warning for a PostgreSQL source config, if it has one; {@code serverMajor} is the source server's major
   * version where the column check read it, empty where it could not (then the config alone decides).
   */
  public static Optional<String> warning(Map<String, String> config, OptionalInt serverMajor) {
    String mode = config.get(MODE);
    if (mode == null || !mode.trim().toLowerCase(Locale.ROOT).equals("filtered")) {
      return Optional.empty();
    }
    if (serverMajor.isPresent() && serverMajor.getAsInt() < FIRST_AFFECTED) {
      return Optional.empty();
    }
    String name = config.getOrDefault(NAME, DEFAULT_NAME);
    return Optional.of(MODE + "=filtered: at every task start Debezium reads pg_publication_tables on its "
        + "replication connection, which opens the published tables (PostgreSQL 16 and later, perhaps 15); after an "
        + "ALTER TABLE ... ALTER COLUMN ... TYPE that rewrote one, the walsender then crashes decoding the rows written "
        + "before it (signal 11; PostgreSQL restarts every backend). Create the publication yourself (CREATE "
        + "PUBLICATION " + name + " FOR TABLE " + tables(config) + ") and set " + MODE + "=disabled, or keep "
        + "Debezium's default all_tables.");
  }

  /** The captured tables as {@code CREATE PUBLICATION} names them, where the include list names them plainly. */
  static String tables(Map<String, String> config) {
    String list = config.get(CaptureFilters.TABLE_INCLUDE);
    if (list == null || list.isBlank()) {
      return "<the captured tables>";
    }
    String matched = "<the tables " + CaptureFilters.TABLE_INCLUDE + " matches>";
    List<Pattern> patterns;
    try {
      patterns = CaptureFilters.patterns(list);
    } catch (PatternSyntaxException e) {
      return matched;
    }
    StringJoiner out = new StringJoiner(", ");
    for (Pattern p : patterns) {
      if (!PLAIN.matcher(p.pattern()).matches()) {
        return matched;
      }
      out.add(p.pattern().replace("\\.", "."));
    }
    return out.toString();
  }

  /** {@code schema.table} (the dot escaped or not) with no other regular-expression syntax. */
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*\\\\?\\.[A-Za-z_][A-Za-z0-9_$]*");
}
