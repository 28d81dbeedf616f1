package io.sluice.connect.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.sluice.http.web.Role;
import java.util.List;
import org.junit.jupiter.api.Test;

class RestAccessTest {
  private static Role needs(String method, String path) {
    return RestAccess.required(method, List.of(path.substring(1).split("/")));
  }

  @Test
  void readingReadsOperatingOperatesTheRestIsAdmin() {
    assertEquals(Role.READ, needs("GET", "/connectors"));
    assertEquals(Role.READ, needs("GET", "/connectors/a/offsets"));
    assertEquals(Role.OPERATE, needs("PUT", "/connectors/a/pause"));
    assertEquals(Role.OPERATE, needs("PUT", "/connectors/a/resume"));
    assertEquals(Role.OPERATE, needs("PUT", "/connectors/a/stop"));
    assertEquals(Role.OPERATE, needs("POST", "/connectors/a/restart"));
    assertEquals(Role.OPERATE, needs("POST", "/connectors/a/tasks/0/restart"));
    assertEquals(Role.OPERATE, needs("PATCH", "/connectors/a/offsets"));
    assertEquals(Role.OPERATE, needs("DELETE", "/connectors/a/offsets"));
    assertEquals(Role.ADMIN, needs("POST", "/connectors"));
    assertEquals(Role.ADMIN, needs("PUT", "/connectors/a/config"));
    assertEquals(Role.ADMIN, needs("PATCH", "/connectors/a/config"));
    assertEquals(Role.ADMIN, needs("DELETE", "/connectors/a"));
    assertEquals(Role.ADMIN, needs("PUT", "/connector-plugins/X/config/validate"));
    assertEquals(Role.ADMIN, needs("PUT", "/admin/loggers/root"));
  }

  @Test
  void healthAndWorkerToWorkerCallsAreLeftToConnect() {
    assertNull(needs("GET", "/health"));
    // Signed with the cluster's session key, which Connect checks itself (as with Kafka's basic-auth extension).
    assertNull(needs("POST", "/connectors/a/tasks"));
    assertNull(needs("PUT", "/connectors/a/fence"));
    assertEquals(Role.ADMIN, needs("POST", "/connectors/a/tasks/extra"));
  }
}
