package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.kafka.ExitControl;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.topics.KafkaCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
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
 * The ACLs docs/security.md lists for exactly-once sources, on a broker that authorizes: a worker whose principal has
 * them (and what any worker needs) runs a PostgreSQL source in transactions; a source whose tasks' transactional ids
 * the principal may not use does not run.
 */
class ExactlyOnceAclsTest {
  private static final String ADMIN_JAAS = jaas("admin", "admin-pw");
  @TempDir static Path dir;
  private static EmbeddedKafka kafka;
  private static ConnectRuntime worker;

  @BeforeAll
  static void start() {
    ExitControl.install((code, message) -> { });
    kafka = EmbeddedKafka.builder().dataDir(dir.resolve("kafka")).port(0)
        .requireSasl("SASL_PLAINTEXT", "PLAIN", "admin", "admin-pw")
        .brokerProperty("listener.name.client.plain.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"admin-pw\""
                + " user_admin=\"admin-pw\" user_worker=\"worker-pw\";")
        .brokerProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        // The broker logs in as admin between brokers; its controller listener is plain (ANONYMOUS).
        .brokerProperty("super.users", "User:admin;User:ANONYMOUS")
        .start();
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  private static String jaas(String user, String password) {
    return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user + "\" password=\""
        + password + "\";";
  }

  private static KafkaCluster as(String jaas) {
    return KafkaCluster.of(kafka.bootstrapServers(), Map.of("security.protocol", "SASL_PLAINTEXT",
        "sasl.mechanism", "PLAIN", "sasl.jaas.config", jaas));
  }

  private static AclBinding allow(ResourceType type, String name, PatternType pattern, AclOperation op) {
    return new AclBinding(new ResourcePattern(type, name, pattern),
        new AccessControlEntry("User:worker", "*", op, AclPermissionType.ALLOW));
  }

  @Test
  void theDocumentedAclsRunAnExactlyOnceSourceAndATransactionalIdNotGrantedStopsOne() throws Exception {
    String group = SharedKafka.unique("acl");
    Pipeline pipeline = new Pipeline(SharedKafka.unique("acl"));
    List<AclBinding> acls = new ArrayList<>();
    // What any worker needs: its group, its topics (internal ones and the source's), the connectors' groups.
    acls.add(allow(ResourceType.GROUP, "*", PatternType.LITERAL, AclOperation.ALL));
    for (String prefix : List.of(group, pipeline.topicPrefix, "__debezium-heartbeat")) {
      acls.add(allow(ResourceType.TOPIC, prefix, PatternType.PREFIXED, AclOperation.ALL));
    }
    acls.add(allow(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, AclOperation.DESCRIBE_CONFIGS));
    // Exactly once, as docs/security.md lists it: the leader's id, and the prefix of every task's id; the worker
    // refuses to start without them. The ids of the source "refunds" are denied, which overrides the prefix.
    for (AclOperation op : List.of(AclOperation.WRITE, AclOperation.DESCRIBE)) {
      acls.add(allow(ResourceType.TRANSACTIONAL_ID, "connect-cluster-" + group, PatternType.LITERAL, op));
      acls.add(allow(ResourceType.TRANSACTIONAL_ID, group + "-", PatternType.PREFIXED, op));
    }
    acls.add(new AclBinding(
        new ResourcePattern(ResourceType.TRANSACTIONAL_ID, group + "-refunds", PatternType.PREFIXED),
        new AccessControlEntry("User:worker", "*", AclOperation.WRITE, AclPermissionType.DENY)));
    try (Admin admin = Admin.create(as(ADMIN_JAAS).clientConfig(Map.of()))) {
      admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
    }

    worker = ConnectRuntime.builder().cluster(as(jaas("worker", "worker-pw"))).restPort(TestWorkers.freePort())
        .groupId(group).topics(group + "-offsets", group + "-configs", group + "-status", group + "-secrets")
        .pluginPath(TestWorkers.pluginPath()).dataDir(dir.resolve("worker")).start();
    ConnectClient rest = new ConnectClient(worker.restUrl());

    pipeline.insert(1, 3);
    assertEquals(201, rest.create("orders", pipeline.sourceConfig(pipeline.name + "_slot", Map.of())).status());
    rest.awaitRunning("orders");
    try (Admin admin = Admin.create(as(ADMIN_JAAS).clientConfig(Map.of()))) {
      TopicPartition tp = new TopicPartition(pipeline.topic(), 0);
      // Three change events and at least one commit marker.
      Eventually.await("the source's change events", Duration.ofSeconds(60), () -> {
        try {
          return admin.listOffsets(Map.of(tp, OffsetSpec.latest()),
              new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(10, TimeUnit.SECONDS).get(tp).offset();
        } catch (Exception e) {
          return 0L;
        }
      }, n -> n >= 4);
      assertTrue(admin.listTransactions().all().get(10, TimeUnit.SECONDS).stream()
          .anyMatch(t -> t.transactionalId().equals(group + "-orders-0")), "no transactional id " + group + "-orders-0");
    }

    // A second source, whose tasks' transactional ids (<group>-refunds-<task>) the principal may not use: a lack the
    // start cannot see, since no connector is named then, so it shows as the task's failure.
    Pipeline other = new Pipeline(SharedKafka.unique("acl"));
    assertEquals(201, rest.create("refunds", other.sourceConfig(other.name + "_slot", Map.of())).status());
    JsonNode status = rest.awaitStatus("refunds", s -> s.path("tasks").size() > 0
        && "FAILED".equals(s.at("/tasks/0/state").asText()), Duration.ofSeconds(90));
    assertTrue(status.at("/tasks/0/trace").asText().contains("TransactionalIdAuthorizationException"),
        status.toString());
  }
}
