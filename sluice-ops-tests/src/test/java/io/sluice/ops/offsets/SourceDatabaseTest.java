package io.sluice.ops.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class SourceDatabaseTest {
  private static InetSocketAddress address(String jdbcUrl) {
    return new SourceDatabase(io.sluice.source.Engine.MYSQL, jdbcUrl, "u", "p", java.util.Map.of(), null, null).address(3306);
  }

  @Test
  void hostAndPortComeFromTheJdbcUrl() {
    assertEquals(InetSocketAddress.createUnresolved("db.example", 3307), address("jdbc:mysql://db.example:3307/shop"));
    assertEquals(InetSocketAddress.createUnresolved("127.0.0.1", 3306), address("jdbc:mariadb://127.0.0.1/?user=x"));
    assertEquals(InetSocketAddress.createUnresolved("::1", 3310), address("jdbc:mysql://[::1]:3310/"));
    assertThrows(IllegalArgumentException.class, () -> address("not a url"));
  }
}
