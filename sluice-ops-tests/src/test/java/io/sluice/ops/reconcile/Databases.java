package io.sluice.ops.reconcile;

import io.sluice.kafka.testing.MariaDbServer;
import io.sluice.connect.testing.SharedPostgres;

/** The databases the reconcile tests share in one JVM: two PostgreSQL databases and one MariaDB database. */
final class Databases {
  private static String postgresSource;
  private static String postgresSink;
  private static String mariadb;

  private Databases() {}

  static synchronized String postgresSource() {
    if (postgresSource == null) {
      postgresSource = SharedPostgres.createDatabase("reconcile_source");
    }
    return postgresSource;
  }

  static synchronized String postgresSink() {
    if (postgresSink == null) {
      postgresSink = SharedPostgres.createDatabase("reconcile_sink");
    }
    return postgresSink;
  }

  /** A database on the test JVM's MariaDB server ({@link MariaDbServer#require()}: a test ends where it is absent). */
  static synchronized String mariadb() {
    if (mariadb == null) {
      mariadb = MariaDbServer.createDatabase("reconcile");
    }
    return mariadb;
  }
}
