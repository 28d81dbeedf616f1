package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.kafka.ExitControl;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.topics.KafkaCluster;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The permissions docs/security.md lists for exactly-once sources, asked of a broker that authorizes, for principals
 * that have them all and for principals that each lack one: each lack is named, nothing else is, and no id a worker
 * uses is initialized by asking.
 */
class TransactionPermissionsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final String GROUP = SharedKafka.unique("txperm");
  private static final String OFFSETS = GROUP + "-offsets";
  /** A group whose leader's id a live producer holds, as a running Connect leader's would be. */
  private static final String LIVE = GROUP + "-live";
  @TempDir static Path dir;
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void start() throws Exception {
    ExitControl.install((code, message) -> { });
    StringBuilder users = new StringBuilder(" user_admin=\"admin-pw\"");
    for (String user : List.of("full", "noprefix", "noleader", "readsoffsets", "nooffsets", "describesleader")) {
      users.append(" user_").append(user).append("=\"").append(user).append("-pw\"");
    }
    kafka = EmbeddedKafka.builder().dataDir(dir.resolve("kafka")).port(0)
        .requireSasl("SASL_PLAINTEXT", "PLAIN", "admin", "admin-pw")
        .brokerProperty("listener.name.client.plain.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"admin-pw\""
                + users + ";")
        .brokerProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        // The broker logs in as admin between brokers; its controller listener is plain (ANONYMOUS).
        .brokerProperty("super.users", "User:admin;User:ANONYMOUS")
        .start();

    List<AclBinding> acls = new ArrayList<>();
    for (String user : List.of("full", "noprefix", "noleader", "readsoffsets", "nooffsets")) {
      List<AclOperation> ops = List.of(AclOperation.WRITE, AclOperation.DESCRIBE);
      for (AclOperation op : ops) {
        if (!user.equals("noleader")) {
          acls.add(allow(user, ResourceType.TRANSACTIONAL_ID, "connect-cluster-" + GROUP, PatternType.LITERAL, op));
        }
        if (!user.equals("noprefix")) {
          acls.add(allow(user, ResourceType.TRANSACTIONAL_ID, GROUP + "-", PatternType.PREFIXED, op));
        }
      }
      if (user.equals("readsoffsets")) {
        acls.add(allow(user, ResourceType.TOPIC, OFFSETS, PatternType.LITERAL, AclOperation.READ));
      } else if (!user.equals("nooffsets")) {
        for (AclOperation op : List.of(AclOperation.WRITE, AclOperation.READ, AclOperation.DESCRIBE)) {
          acls.add(allow(user, ResourceType.TOPIC, OFFSETS, PatternType.LITERAL, op));
        }
      }
    }
    // The live group's leader id: "full" may Write it, "describesleader" only Describe it (and has the rest).
    for (AclOperation op : List.of(AclOperation.WRITE, AclOperation.DESCRIBE)) {
      acls.add(allow("full", ResourceType.TRANSACTIONAL_ID, "connect-cluster-" + LIVE, PatternType.LITERAL, op));
      acls.add(allow("describesleader", ResourceType.TRANSACTIONAL_ID, GROUP + "-", PatternType.PREFIXED, op));
    }
    acls.add(allow("describesleader", ResourceType.TRANSACTIONAL_ID, "connect-cluster-" + LIVE, PatternType.LITERAL,
        AclOperation.DESCRIBE));
    acls.add(allow("describesleader", ResourceType.TOPIC, OFFSETS, PatternType.LITERAL, AclOperation.ALL));
    // A topic not yet made: "full" may describe it but not create it; "noleader" may do both.
    acls.add(allow("full", ResourceType.TOPIC, GROUP + "-new", PatternType.PREFIXED, AclOperation.DESCRIBE));
    for (AclOperation op : List.of(AclOperation.DESCRIBE, AclOperation.CREATE)) {
      acls.add(allow("noleader", ResourceType.TOPIC, GROUP + "-new", PatternType.PREFIXED, op));
    }
    // One principal may list the ACLs, which tells an authorizer from none without being refused.
    acls.add(allow("full", ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, AclOperation.DESCRIBE));
    try (Admin admin = Admin.create(as("admin").clientConfig(Map.of()))) {
      admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
      admin.createTopics(List.of(new NewTopic(OFFSETS, Optional.of(1), Optional.empty()))).all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  @AfterAll
  static void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  private static KafkaCluster as(String user) {
    return KafkaCluster.of(kafka.bootstrapServers(), Map.of("security.protocol", "SASL_PLAINTEXT",
        "sasl.mechanism", "PLAIN", "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule"
            + " required username=\"" + user + "\" password=\"" + user + "-pw\";"));
  }

  private static AclBinding allow(String user, ResourceType type, String name, PatternType pattern, AclOperation op) {
    return new AclBinding(new ResourcePattern(type, name, pattern),
        new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW));
  }

  private static TransactionPermissions.Report check(String user, String support) {
    return TransactionPermissions.of(as(user), GROUP, OFFSETS, support).check(TIMEOUT);
  }

  private static TransactionPermissions.Missing only(TransactionPermissions.Report report) {
    assertTrue(report.authorizes());
    assertEquals(List.of(), report.unasked());
    assertEquals(1, report.missing().size(), report.missing().toString());
    return report.missing().get(0);
  }

  @Test
  void aPrincipalWithEveryDocumentedAclLacksNothingAndTheLeadersIdIsNeverInitialized() throws Exception {
    TransactionPermissions.Report report = check("full", "enabled");
    assertTrue(report.authorizes());
    assertEquals(List.of(), report.missing());
    assertEquals(List.of(), report.unasked());
    try (Admin admin = Admin.create(as("admin").clientConfig(Map.of()))) {
      List<String> ids = admin.listTransactions().all().get(30, TimeUnit.SECONDS).stream()
          .map(TransactionListing::transactionalId).toList();
      assertFalse(ids.contains("connect-cluster-" + GROUP), ids.toString());
      assertTrue(ids.contains(GROUP + "-" + TransactionPermissions.PROBE_ID), ids.toString());
    }
  }

  @Test
  void theTasksPrefixNotGrantedIsNamedWithTheCommandThatGrantsIt() {
    TransactionPermissions permissions = TransactionPermissions.of(as("noprefix"), GROUP, OFFSETS, "enabled");
    TransactionPermissions.Report report = permissions.check(TIMEOUT);
    TransactionPermissions.Missing missing = only(report);
    assertEquals(ResourceType.TRANSACTIONAL_ID, missing.resourceType());
    assertEquals(GROUP + "-", missing.resourceName());
    assertEquals(PatternType.PREFIXED, missing.patternType());
    assertEquals(List.of(AclOperation.WRITE, AclOperation.DESCRIBE), missing.operations());
    assertEquals(List.of("User:noprefix lacks Write and Describe on TransactionalId " + GROUP + "- (pattern type "
        + "prefixed), needed because each source task writes in transactions under " + GROUP
        + "-<connector>-<task> (asked with the unused id " + GROUP + "-sluice-acl-probe); grant it with: kafka-acls "
        + "--bootstrap-server " + kafka.bootstrapServers() + " --command-config admin.properties --add "
        + "--allow-principal User:noprefix --operation Write --operation Describe --transactional-id " + GROUP
        + "- --resource-pattern-type prefixed"), permissions.sentences(report));
  }

  @Test
  void theLeadersIdNotGrantedIsNamed() {
    TransactionPermissions.Missing missing = only(check("noleader", "enabled"));
    assertEquals(ResourceType.TRANSACTIONAL_ID, missing.resourceType());
    assertEquals("connect-cluster-" + GROUP, missing.resourceName());
    assertEquals(PatternType.LITERAL, missing.patternType());
    assertTrue(missing.command(kafka.bootstrapServers(), "User:noleader").endsWith(
        "--operation Write --operation Describe --transactional-id connect-cluster-" + GROUP));
  }

  @Test
  void theLeadersIdGrantedDescribeWithoutWriteIsNamedAndAskingLeavesItsLiveProducerAlone() throws Exception {
    Map<String, Object> config = as("admin").clientConfig(Map.of("transactional.id", "connect-cluster-" + LIVE));
    try (KafkaProducer<byte[], byte[]> leader =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
      leader.initTransactions();
      leader.beginTransaction();
      leader.send(new ProducerRecord<>(OFFSETS, new byte[] {1})).get(30, TimeUnit.SECONDS);

      TransactionPermissions.Missing write =
          only(TransactionPermissions.of(as("describesleader"), LIVE, OFFSETS, "enabled").check(TIMEOUT));
      assertEquals(List.of(AclOperation.WRITE), write.operations());
      assertEquals("connect-cluster-" + LIVE, write.resourceName());
      assertEquals(PatternType.LITERAL, write.patternType());
      TransactionPermissions.Report granted = TransactionPermissions.of(as("full"), LIVE, OFFSETS, "enabled")
          .check(TIMEOUT);
      assertEquals(List.of(), granted.missing());
      assertEquals(List.of(), granted.unasked());

      // Fenced or aborted, the leader could not commit.
      leader.commitTransaction();
    }
  }

  @Test
  void theOffsetsTopicsOperationsNotGrantedAreNamed() {
    // Read implies Describe, so only Write is lacking.
    TransactionPermissions.Missing reads = only(check("readsoffsets", "enabled"));
    assertEquals(ResourceType.TOPIC, reads.resourceType());
    assertEquals(OFFSETS, reads.resourceName());
    assertEquals(List.of(AclOperation.WRITE), reads.operations());
    TransactionPermissions.Missing none = only(check("nooffsets", "enabled"));
    assertEquals(List.of(AclOperation.WRITE, AclOperation.READ, AclOperation.DESCRIBE), none.operations());
  }

  @Test
  void anOffsetsTopicNotYetMadeNeedsCreateWhichIsAskedWithoutMakingIt() throws Exception {
    String topic = GROUP + "-new-offsets";
    TransactionPermissions.Report refused =
        TransactionPermissions.of(as("full"), GROUP, topic, "enabled").check(TIMEOUT);
    TransactionPermissions.Missing create = only(refused);
    assertEquals(List.of(AclOperation.CREATE), create.operations());
    assertEquals(topic, create.resourceName());
    // "noleader" may create it: only its own lack is named.
    assertEquals("connect-cluster-" + GROUP, only(TransactionPermissions.of(as("noleader"), GROUP, topic, "enabled")
        .check(TIMEOUT)).resourceName());
    try (Admin admin = Admin.create(as("admin").clientConfig(Map.of()))) {
      assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic));
    }
  }

  @Test
  void preparingNeedsTheLeadersIdOnlyAndDisabledNothing() {
    assertEquals(List.of(), check("noprefix", "preparing").missing());
    assertEquals("connect-cluster-" + GROUP, only(check("noleader", "preparing")).resourceName());
    assertEquals(List.of(), check("noleader", "disabled").missing());
  }

  @Test
  void aClusterWithoutAnAuthorizerIsNotAskedFurther() {
    TransactionPermissions.Report report = TransactionPermissions.of(
        KafkaCluster.of(SharedKafka.bootstrapServers()), GROUP, OFFSETS, "enabled").check(TIMEOUT);
    assertFalse(report.authorizes());
    assertEquals(List.of(), report.missing());
  }

  @Test
  void aWorkerWhosePrincipalLacksThePrefixRefusesToStartNamingIt() throws Exception {
    int port = TestWorkers.freePort();
    IllegalStateException refused = assertThrows(IllegalStateException.class, () -> ConnectRuntime.builder()
        .cluster(as("noprefix")).restPort(port).groupId(GROUP)
        .topics(OFFSETS, GROUP + "-configs", GROUP + "-status", GROUP + "-secrets")
        .dataDir(dir.resolve("worker")).start());
    assertTrue(refused.getMessage().contains("--transactional-id " + GROUP + "- --resource-pattern-type prefixed"),
        refused.getMessage());
    assertFalse(refused.getMessage().contains("connect-cluster-"), refused.getMessage());
    // The refused worker let go of its REST port.
    try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertEquals(port, again.getLocalPort());
    }
  }
}
