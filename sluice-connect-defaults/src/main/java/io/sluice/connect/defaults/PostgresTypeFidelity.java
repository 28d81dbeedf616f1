package io.sluice.connect.defaults;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Which PostgreSQL column types a Sluice pipeline carries exactly with Sluice's defaults (Debezium's PostgreSQL
 * connector with pgoutput and Sluice's {@code PostgresTextConverter}), and for each one it does not: what happens to
 * the value and what the user can do. The one place this knowledge lives: the source-side check that refuses a
 * connector before data flows reads it, and so can anything else that must know (a sink-side check, reconcile, the
 * type matrix).
 *
 * <p>Looked up by the type as PostgreSQL's catalog names it ({@code pg_type.typname}: {@code timetz}, {@code int4},
 * {@code _int4} for an array). A domain is judged by its base type and an array by its element type, apart from the
 * arrays Debezium leaves out whatever their element ({@link #LOST_ARRAYS}). A base type this catalogue does not name
 * is one Debezium's PostgreSQL connector does not know. To teach it a type, add a line to {@link #CARRIED} or
 * {@link #LOST}.
 */
public final class PostgresTypeFidelity {
  private PostgresTypeFidelity() {}

  /** What the pipeline does with a column of some type. */
  public sealed interface Verdict permits Carried, NotCarried {}

  /** The value arrives as it left. */
  public record Carried() implements Verdict {}

  /**
   * The value does not arrive as it left. {@code happens}: what becomes of it, one sentence; {@code remedy}: a way to
   * carry it anyway, beside the choices every such column has (exclude it, accept the loss).
   */
  public record NotCarried(String happens, String remedy) implements Verdict {
    public NotCarried {
      Objects.requireNonNull(happens);
      Objects.requireNonNull(remedy);
    }
  }

  /** How the catalog classifies a type ({@code pg_type.typtype}, with arrays apart). */
  public enum Kind {
    BASE, ENUM, RANGE, MULTIRANGE, COMPOSITE, DOMAIN, ARRAY, PSEUDO;

    /** From {@code pg_type.typtype} and whether the type is an array ({@code typcategory = 'A'}). */
    public static Kind of(String typtype, boolean array) {
      if (array) {
        return ARRAY;
      }
      return switch (typtype == null ? "" : typtype) {
        case "b" -> BASE;
        case "e" -> ENUM;
        case "r" -> RANGE;
        case "m" -> MULTIRANGE;
        case "c" -> COMPOSITE;
        case "d" -> DOMAIN;
        default -> PSEUDO;
      };
    }
  }

  /**
   * A column's type: its catalog name, how it is shown to people ({@code format_type}), its kind, and for a domain its
   * base type, for an array its element type (null otherwise).
   */
  public record ColumnType(String name, String shown, Kind kind, ColumnType inner) {
    public ColumnType {
      Objects.requireNonNull(name);
      Objects.requireNonNull(kind);
      shown = shown == null ? name : shown;
      if ((kind == Kind.DOMAIN || kind == Kind.ARRAY) && inner == null) {
        throw new IllegalArgumentException(kind + " " + name + " needs its " + (kind == Kind.DOMAIN ? "base" : "element")
            + " type");
      }
    }

    public static ColumnType base(String name) {
      return new ColumnType(name, name, Kind.BASE, null);
    }
  }

  /**
   * Where a remedy names the column, it writes {@value #COLUMN}; the caller puts the column's name in its place. A
   * generated column reaches the change events only where logical replication publishes it (PostgreSQL 18 and later,
   * with the publication's {@code publish_generated_columns = stored}); before that a trigger keeps the copy.
   */
  public static final String COLUMN = "{c}";

  private static final String GENERATED = "; a generated column is published from PostgreSQL 18 on, with the "
      + "publication's publish_generated_columns = stored, before that a trigger keeps the copy";

  private static final String TEXT_CAST = "cast it to text in a column of its own and capture that instead ({c}_text "
      + "text GENERATED ALWAYS AS ({c}::text) STORED" + GENERATED + ")";

  /**
   * Base types carried exactly: the built-in types Debezium's PostgreSQL connector maps (its data type mappings, and the
   * JDBC types it falls back on), with Sluice's converter for numeric without scale, interval, varbit and the geometric
   * types, and the extension types Debezium names (hstore, citext, ltree, PostGIS, pgvector, isbn).
   */
  static final Set<String> CARRIED = Set.of(
      "bool", "bit", "varbit",
      "int2", "int4", "int8", "oid", "float4", "float8", "numeric", "money",
      "char", "bpchar", "varchar", "text", "name",
      "bytea",
      "date", "time", "timestamp", "timestamptz", "interval",
      "uuid", "json", "jsonb", "xml", "tsvector",
      "inet", "cidr", "macaddr", "macaddr8",
      "point", "line", "lseg", "box", "path", "polygon", "circle",
      "int4range", "int8range", "numrange", "tsrange", "tstzrange", "daterange",
      // Extensions Debezium knows by name.
      "hstore", "citext", "ltree", "geometry", "geography", "vector", "halfvec", "sparsevec", "isbn");

  /** Base types Debezium knows but does not carry exactly. */
  static final Map<String, NotCarried> LOST = Map.of(
      "timetz", new NotCarried("pgoutput decoding normalises the value to UTC before any converter sees it, so "
          + "12:34:56+05:30 arrives as 07:04:56+00 (the same instant, its offset lost)",
          TEXT_CAST));

  /**
   * Arrays Debezium's PostgreSQL connector leaves out of the change event whatever their element (it has no schema for
   * them, and {@code include.unknown.datatypes} does not bring them back).
   */
  static final Set<String> LOST_ARRAYS = Set.of("_name", "_refcursor");

  /**
   * Arrays Sluice's converter ({@code PostgresTextConverter}) carries in PostgreSQL's text form whatever their element
   * holds: read as PostgreSQL writes the array, an element's offset or NaN is kept. Debezium alone leaves most of them
   * out or cannot write them back.
   */
  static final Set<String> TEXT_ARRAYS = Set.of("_date", "_time", "_timetz", "_timestamp", "_timestamptz",
      "_interval", "_money", "_xml", "_varbit", "_bit", "_box", "_lseg", "_path", "_polygon", "_point", "_line",
      "_circle");

  private static final NotCarried UNKNOWN = new NotCarried("Debezium's PostgreSQL connector does not know the type: "
      + "it leaves the column out of the change event, or with include.unknown.datatypes=true sends its binary form, "
      + "which no sink writes back", TEXT_CAST);

  private static final NotCarried COMPOSITE = new NotCarried("Debezium's PostgreSQL connector does not carry composite "
      + "types: it leaves the column out of the change event, or with include.unknown.datatypes=true sends its binary "
      + "form, which no sink writes back", "capture its fields instead, each in a column of its own "
      + "({c}_f int GENERATED ALWAYS AS (({c}).f) STORED" + GENERATED + ")");

  private static final NotCarried LOST_ARRAY = new NotCarried("Debezium's PostgreSQL connector has no schema for an "
      + "array of this type and leaves the column out of the change event", "cast it to text[] in a column of its own and "
      + "capture that instead ({c}_text text[] GENERATED ALWAYS AS ({c}::text[]) STORED" + GENERATED + ")");

  private static final NotCarried MULTI_DIMENSIONAL = new NotCarried("Debezium's PostgreSQL connector reads arrays "
      + "of one dimension: a value of more ({{1,2},{3,4}}) does not arrive as it left", TEXT_CAST);

  /**
   * The verdict for a column of this type declared with {@code dimensions} array dimensions
   * ({@code pg_attribute.attndims}, as {@code integer[][]} declares 2): an array Debezium carries itself is refused
   * when declared with more than one, as Debezium reads one; one that travels as text keeps them all.
   */
  public static Verdict verdict(ColumnType type, int dimensions) {
    Verdict verdict = verdict(type);
    boolean debeziums = type.kind() == Kind.ARRAY && !TEXT_ARRAYS.contains(type.name());
    return debeziums && dimensions > 1 && verdict instanceof Carried ? MULTI_DIMENSIONAL : verdict;
  }

  /** The verdict for a column of this type. */
  public static Verdict verdict(ColumnType type) {
    return switch (type.kind()) {
      case DOMAIN -> verdict(type.inner());
      case ARRAY -> LOST_ARRAYS.contains(type.name()) ? LOST_ARRAY
          : TEXT_ARRAYS.contains(type.name()) ? new Carried() : verdict(type.inner());
      case ENUM, RANGE -> type.kind() == Kind.RANGE && !CARRIED.contains(type.name()) ? UNKNOWN : new Carried();
      case COMPOSITE -> COMPOSITE;
      case BASE -> CARRIED.contains(type.name()) ? new Carried()
          : Optional.<Verdict>ofNullable(LOST.get(type.name())).orElse(UNKNOWN);
      case MULTIRANGE, PSEUDO -> UNKNOWN;
    };
  }

  /** The verdict for a base type named as in {@code pg_type.typname}. */
  public static Verdict verdict(String baseTypeName) {
    return verdict(ColumnType.base(baseTypeName));
  }
}
