package io.sluice.app.up;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PlaneCommandTest {
  @Test
  void theHandoffCarriesTheInternalUserSoThatNoPlaneHashesItsPasswordAgain() throws Exception {
    WebSurfaces.InternalUser user = new WebSurfaces.InternalUser("random-password", "$2a$10$hash");
    PlaneCommand.Handoff sent = new PlaneCommand.Handoff(Map.of("host", "127.0.0.1"), user, "/opt/sluice/plugins");
    PlaneCommand.Handoff read = PlaneCommand.Handoff.fromJson(sent.toJson());
    assertEquals(sent, read);
    assertFalse(read.toString().contains("random-password"), read.toString());
    assertFalse(user.toString().contains("random-password"), user.toString());
  }

  @Test
  void withoutCredentialsAskedForThereIsNoInternalUser() throws Exception {
    PlaneCommand.Handoff sent = new PlaneCommand.Handoff(Map.of(), null, "plugins");
    assertNull(PlaneCommand.Handoff.fromJson(sent.toJson()).internalUser());
  }

  @Test
  void whatAPlaneSaysWhileItStopsIsReadBackAsSaid() {
    PlaneCommand.Stopping said = new PlaneCommand.Stopping(120, "the broker");
    assertEquals(Optional.of(said), PlaneCommand.Stopping.parse(said.line()));
    assertEquals(Optional.empty(), PlaneCommand.Stopping.parse("sluice plane stopping soon"));
  }
}
