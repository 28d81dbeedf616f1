package io.sluice.app.checkconfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.EmbeddedKafka;
import io.sluice.kafka.ExitControl;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.topics.KafkaCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice check-config --connect}: the cluster a file names, on a broker that authorizes, asked whether the
 * file's login has what exactly-once sources need; without {@code --connect} nothing is asked.
 */
class CheckConfigConnectTest {
  private static final String GROUP = SharedKafka.unique("checkconf");
  @TempDir static Path dir;
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void start() throws Exception {
    ExitControl.install((code, message) -> { });
    kafka = EmbeddedKafka.builder().dataDir(dir.resolve("kafka")).port(0)
        .requireSasl("SASL_PLAINTEXT", "PLAIN", "admin", "admin-pw")
        .brokerProperty("listener.name.client.plain.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"admin-pw\""
                + " user_admin=\"admin-pw\" user_granted=\"granted-pw\" user_ungranted=\"ungranted-pw\";")
        .brokerProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        .brokerProperty("super.users", "User:admin;User:ANONYMOUS")
        .start();
    List<AclBinding> acls = new ArrayList<>();
    for (AclOperation op : List.of(AclOperation.WRITE, AclOperation.DESCRIBE)) {
      acls.add(allow(ResourceType.TRANSACTIONAL_ID, "connect-cluster-" + GROUP, PatternType.LITERAL, op));
      acls.add(allow(ResourceType.TRANSACTIONAL_ID, GROUP + "-", PatternType.PREFIXED, op));
    }
    acls.add(allow(ResourceType.TOPIC, "connect-offsets", PatternType.LITERAL, AclOperation.ALL));
    try (Admin admin = Admin.create(KafkaCluster.of(kafka.bootstrapServers(), Map.of("security.protocol",
        "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN", "sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"admin-pw\";"))
        .clientConfig())) {
      admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
    }
  }

  @AfterAll
  static void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  private static AclBinding allow(ResourceType type, String name, PatternType pattern, AclOperation op) {
    return new AclBinding(new ResourcePattern(type, name, pattern),
        new AccessControlEntry("User:granted", "*", op, AclPermissionType.ALLOW));
  }

  private static Path file(String user) throws Exception {
    Path password = Files.writeString(dir.resolve(user + ".password"), user + "-pw\n");
    return Files.writeString(dir.resolve(user + ".yaml"), """
        data.dir: %s
        kafka:
          bootstrap.servers: %s
          client:
            security.protocol: SASL_PLAINTEXT
            sasl.mechanism: PLAIN
            sasl.username: %s
            sasl.password.file: %s
        connect.group.id: %s
        """.formatted(dir.resolve("data"), kafka.bootstrapServers(), user, password, GROUP));
  }

  @Test
  void aLoginWithTheDocumentedAclsPasses() throws Exception {
    assertEquals(List.of(), CheckConfigCommand.problems(file("granted"), true));
  }

  @Test
  void eachPermissionALoginLacksIsNamedOnlyWhenAskedToConnect() throws Exception {
    Path file = file("ungranted");
    assertEquals(List.of(), CheckConfigCommand.problems(file, false));
    List<String> problems = CheckConfigCommand.problems(file, true);
    String where = "kafka.bootstrap.servers " + kafka.bootstrapServers() + ": User:ungranted lacks ";
    assertEquals(3, problems.size(), problems.toString());
    assertTrue(problems.get(0).startsWith(where + "Write and Describe on TransactionalId connect-cluster-" + GROUP
        + " (pattern type literal)"), problems.get(0));
    assertTrue(problems.get(1).startsWith(where + "Write and Describe on TransactionalId " + GROUP
        + "- (pattern type prefixed)"), problems.get(1));
    assertTrue(problems.get(1).endsWith("--operation Write --operation Describe --transactional-id " + GROUP
        + "- --resource-pattern-type prefixed"), problems.get(1));
    assertTrue(problems.get(2).startsWith(where + "Write, Read and Describe on Topic connect-offsets"),
        problems.get(2));
  }
}
