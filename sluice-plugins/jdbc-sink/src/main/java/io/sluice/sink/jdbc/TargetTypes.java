package io.sluice.sink.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The enum types a PostgreSQL sink database has, by name: a table the sink makes gives a column of the source's enum
 * type that type where the database has one ({@code io.sluice.sink.jdbc.types.EnumTypeOfTarget}).
 */
final class TargetTypes {
  private static final Logger LOG = LoggerFactory.getLogger(TargetTypes.class);

  private TargetTypes() {}

  /** The enum types of the database at {@code url} (outside PostgreSQL's own schemas); none where it cannot say. */
  static Set<String> enums(String url, String user, String password) {
    Set<String> out = new HashSet<>();
    if (url == null || !url.startsWith("jdbc:postgresql:")) {
      return out;
    }
    try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace"
            + " WHERE t.typtype = 'e' AND n.nspname NOT IN ('pg_catalog', 'information_schema')")) {
      while (rs.next()) {
        out.add(rs.getString(1).toLowerCase(Locale.ROOT));
      }
    } catch (SQLException e) {
      LOG.info("The sink database's enum types could not be read ({}); enum columns of tables the sink makes are text",
          e.getMessage());
    }
    return out;
  }
}
