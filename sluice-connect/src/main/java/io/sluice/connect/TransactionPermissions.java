package io.sluice.connect;

import io.sluice.topics.KafkaCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.DefaultHostResolver;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.NetworkClientUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Time;

/**
 * The permissions a Connect worker's principal needs for exactly-once sources (docs/security.md, "Exactly once:
 * transactional ids and ACLs"), asked of the cluster before the worker relies on them, so that a missing ACL is named
 * at start instead of showing up later as a FAILED task, or as a leader that cannot write its config topic.
 *
 * <p>Nothing here touches an id that a worker or task uses: initializing a transactional producer under
 * {@code connect-cluster-<group>} or a task's id would fence the live one. What is asked:
 * <ul>
 *   <li>whether the cluster authorizes at all: the operations it allows the principal on the cluster, then its ACL
 *       list, which a cluster without an authorizer answers with {@link SecurityDisabledException}; when it does not
 *       authorize, nothing else is asked;</li>
 *   <li>{@code connect-cluster-<group>}: described ({@code Admin.describeTransactions}), which needs Describe; then
 *       an abort sent for a producer id the id does not have, which the broker authorizes (Write) before it finds
 *       the mismatch and changes nothing;</li>
 *   <li>the prefix {@code <group>-} of the tasks' ids: a transactional producer initialized under {@link #PROBE_ID},
 *       an id no task has, which needs Write;</li>
 *   <li>the worker's offsets topic: the operations the cluster says the principal may perform on it, or, before it
 *       exists, whether it may be created.</li>
 * </ul>
 * With {@code exactly.once.source.support=preparing} only the leader's id is needed, and asked.
 */
public final class TransactionPermissions {
  /** The suffix, after {@code <group>-}, of the transactional id initialized to learn whether the prefix is granted. */
  public static final String PROBE_ID = "sluice-acl-probe";

  private static final String LEADER_WHY = "the Connect group's leader writes the config topic in transactions under "
      + "it and fences a connector's earlier tasks with it";

  /**
   * Answers to {@link #endUnknownTransaction} that a broker gives only once it has authorized Write on the id: the
   * broker checks Write before it looks at the transaction, and a request not sent to the id's coordinator, or for a
   * producer the id does not have, is refused after that.
   */
  private static final Set<Errors> WRITE_GRANTED = EnumSet.of(Errors.INVALID_PRODUCER_ID_MAPPING,
      Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_LOAD_IN_PROGRESS,
      Errors.CONCURRENT_TRANSACTIONS, Errors.PRODUCER_FENCED, Errors.INVALID_PRODUCER_EPOCH, Errors.INVALID_TXN_STATE);

  private final KafkaCluster cluster;
  private final String group;
  private final String offsetsTopic;
  private final String support;

  private TransactionPermissions(KafkaCluster cluster, String group, String offsetsTopic, String support) {
    this.cluster = cluster;
    this.group = group;
    this.offsetsTopic = offsetsTopic;
    this.support = support.toLowerCase(Locale.ROOT);
  }

  /**
   * @param support the worker's {@code exactly.once.source.support}: {@code enabled}, {@code preparing} or
   *     {@code disabled}
   */
  public static TransactionPermissions of(KafkaCluster cluster, String group, String offsetsTopic, String support) {
    return new TransactionPermissions(cluster, group, offsetsTopic, support);
  }

  /** What a Connect worker of this configuration needs: its cluster, group, offsets topic and exactly-once setting. */
  public static TransactionPermissions ofWorker(Map<String, String> workerConfig) {
    return of(KafkaCluster.from(workerConfig), workerConfig.getOrDefault("group.id", "sluice"),
        workerConfig.getOrDefault("offset.storage.topic", ConnectRuntime.OFFSETS_TOPIC),
        workerConfig.getOrDefault(ConnectRuntime.EXACTLY_ONCE_SOURCE_SUPPORT, "disabled"));
  }

  /** Whether the worker writes in transactions at all, so that there is something to ask. */
  public boolean needed() {
    return support.equals("enabled") || support.equals("preparing");
  }

  /** The transactional id the Connect group's leader writes the config topic with. */
  public String leaderId() {
    return "connect-cluster-" + group;
  }

  /** The prefix every source task's transactional id ({@code <group>-<connector>-<task>}) begins with. */
  public String taskPrefix() {
    return group + "-";
  }

  /**
   * Asks the cluster, each question given at most {@code timeout}. A question the cluster does not answer is reported
   * as not asked, never as a missing permission.
   */
  public Report check(Duration timeout) {
    if (!needed()) {
      return new Report(false, List.of(), List.of());
    }
    List<Missing> missing = new ArrayList<>();
    List<String> unasked = new ArrayList<>();
    int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    try (Admin admin = Admin.create(cluster.clientConfig(Map.of("request.timeout.ms", millis,
        "default.api.timeout.ms", millis)))) {
      try {
        if (!authorizes(admin, millis)) {
          return new Report(false, List.of(), List.of());
        }
      } catch (ExecutionException e) {
        return new Report(true, List.of(), List.of("the cluster's authorizer: " + reason(e.getCause())));
      } catch (TimeoutException e) {
        return new Report(true, List.of(), List.of("the cluster's authorizer: no answer within "
            + timeout.toSeconds() + " s"));
      }
      checkLeaderId(admin, millis, missing, unasked);
      if (support.equals("enabled")) {
        checkTaskPrefix(millis, missing, unasked);
        checkOffsetsTopic(admin, millis, missing, unasked);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      unasked.add("interrupted");
    }
    return new Report(true, List.copyOf(missing), List.copyOf(unasked));
  }

  /**
   * A broker without an authorizer reports every cluster operation as allowed, and answers a request for its ACLs with
   * {@link SecurityDisabledException}. The ACLs are asked only of a principal the cluster lets describe itself: a
   * broker refusing that request logs an error of its own each time, which each worker's start must not leave behind.
   */
  private static boolean authorizes(Admin admin, int millis)
      throws InterruptedException, ExecutionException, TimeoutException {
    Set<AclOperation> allowed = admin.describeCluster(new DescribeClusterOptions()
        .includeAuthorizedOperations(true)).authorizedOperations().get(millis, TimeUnit.MILLISECONDS);
    if (allowed == null || !allowed.contains(AclOperation.DESCRIBE)) {
      return true;
    }
    try {
      admin.describeAcls(AclBindingFilter.ANY).values().get(millis, TimeUnit.MILLISECONDS);
      return true;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SecurityDisabledException) {
        return false;
      }
      throw e;
    }
  }

  private void checkLeaderId(Admin admin, int millis, List<Missing> missing, List<String> unasked)
      throws InterruptedException {
    String id = leaderId();
    try {
      admin.describeTransactions(List.of(id)).description(id).get(millis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TransactionalIdAuthorizationException) {
        missing.add(new Missing(List.of(AclOperation.WRITE, AclOperation.DESCRIBE), ResourceType.TRANSACTIONAL_ID, id,
            PatternType.LITERAL, LEADER_WHY));
        return;
      } else if (!(e.getCause() instanceof TransactionalIdNotFoundException)) {
        unasked.add("TransactionalId " + id + ": " + reason(e.getCause()));
        return;
      }
    } catch (TimeoutException e) {
      unasked.add("TransactionalId " + id + ": no answer within " + millis / 1000 + " s");
      return;
    }
    try {
      Errors answer = endUnknownTransaction(admin, id, millis);
      if (answer == Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED) {
        missing.add(new Missing(List.of(AclOperation.WRITE), ResourceType.TRANSACTIONAL_ID, id, PatternType.LITERAL,
            LEADER_WHY));
      } else if (!WRITE_GRANTED.contains(answer)) {
        unasked.add("Write on TransactionalId " + id + ": " + answer.name());
      }
    } catch (ExecutionException | IOException | KafkaException e) {
      unasked.add("Write on TransactionalId " + id + ": " + reason(e instanceof ExecutionException ? e.getCause() : e));
    } catch (TimeoutException e) {
      unasked.add("Write on TransactionalId " + id + ": no answer within " + millis / 1000 + " s");
    }
  }

  /**
   * Asks whether the principal may Write a transactional id that a live producer holds, without touching that
   * producer: an abort (EndTxn) for a producer id no producer has. The broker authorizes Write on the id first, then
   * finds the producer id does not match the id's and changes nothing. Initializing a producer instead would fence
   * the live one. Kafka's clients have no public call for a request of this kind, so this one is sent by the
   * network client they are built on.
   */
  private Errors endUnknownTransaction(Admin admin, String id, int millis)
      throws InterruptedException, ExecutionException, TimeoutException, IOException {
    Node node = admin.describeCluster().nodes().get(millis, TimeUnit.MILLISECONDS).iterator().next();
    Map<String, Object> props = cluster.clientConfig(Map.of("request.timeout.ms", millis));
    Time time = Time.SYSTEM;
    LogContext logContext = new LogContext("[sluice-acl-probe] ");
    try (Metrics metrics = new Metrics(time)) {
      NetworkClient client = ClientUtils.createNetworkClient(new AdminClientConfig(props), "sluice-acl-probe",
          metrics, "sluice-acl-probe", logContext, new ApiVersions(), time, 1, millis, null,
          new ManualMetadataUpdater(List.of(node)), new DefaultHostResolver(), null, null);
      try {
        if (!NetworkClientUtils.awaitReady(client, node, time, millis)) {
          throw new TimeoutException();
        }
        EndTxnRequest.Builder abort = new EndTxnRequest.Builder(new EndTxnRequestData().setTransactionalId(id)
            // Producer ids are handed out from 0 upwards; this one no producer has.
            .setProducerId(Long.MAX_VALUE).setProducerEpoch((short) 0).setCommitted(false), false);
        ClientResponse response = NetworkClientUtils.sendAndReceive(client,
            client.newClientRequest(node.idString(), abort, time.milliseconds(), true), time);
        return ((EndTxnResponse) response.responseBody()).error();
      } finally {
        client.close();
      }
    }
  }

  private void checkTaskPrefix(int millis, List<Missing> missing, List<String> unasked) {
    String probe = taskPrefix() + PROBE_ID;
    Map<String, Object> config = cluster.clientConfig(Map.of("transactional.id", probe,
        "max.block.ms", millis, "request.timeout.ms", millis, "client.id", probe));
    KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    try {
      producer.initTransactions();
    } catch (TransactionalIdAuthorizationException e) {
      missing.add(new Missing(List.of(AclOperation.WRITE, AclOperation.DESCRIBE), ResourceType.TRANSACTIONAL_ID,
          taskPrefix(), PatternType.PREFIXED, "each source task writes in transactions under "
          + taskPrefix() + "<connector>-<task> (asked with the unused id " + probe + ")"));
    } catch (ProducerFencedException | InvalidProducerEpochException e) {
      // Another node's check initialized the same id meanwhile: Write was granted to get this far.
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      unasked.add("TransactionalId prefix " + taskPrefix() + ": no answer within " + millis / 1000 + " s");
    } catch (KafkaException e) {
      unasked.add("TransactionalId prefix " + taskPrefix() + ": " + reason(e));
    } finally {
      // Bounded: a producer whose cluster did not answer would otherwise wait for its sender without end.
      producer.close(Duration.ofSeconds(5));
    }
  }

  private void checkOffsetsTopic(Admin admin, int millis, List<Missing> missing, List<String> unasked)
      throws InterruptedException {
    Set<AclOperation> needed = EnumSet.of(AclOperation.WRITE, AclOperation.READ, AclOperation.DESCRIBE);
    String why = "each source task writes its offsets in its transactions and the worker reads them back committed";
    try {
      TopicDescription topic = admin.describeTopics(List.of(offsetsTopic),
          new DescribeTopicsOptions().includeAuthorizedOperations(true)).allTopicNames()
          .get(millis, TimeUnit.MILLISECONDS).get(offsetsTopic);
      if (topic.authorizedOperations() == null) {
        unasked.add("Topic " + offsetsTopic + ": the cluster did not say which operations are allowed");
        return;
      }
      needed.removeAll(topic.authorizedOperations());
      if (!needed.isEmpty()) {
        missing.add(new Missing(ordered(needed), ResourceType.TOPIC, offsetsTopic, PatternType.LITERAL, why));
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicAuthorizationException) {
        missing.add(new Missing(ordered(needed), ResourceType.TOPIC, offsetsTopic, PatternType.LITERAL, why));
      } else if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        checkOffsetsTopicCreate(admin, millis, missing, unasked, why);
      } else {
        unasked.add("Topic " + offsetsTopic + ": " + reason(e.getCause()));
      }
    } catch (TimeoutException e) {
      unasked.add("Topic " + offsetsTopic + ": no answer within " + millis / 1000 + " s");
    }
  }

  /**
   * Before the worker's first start its offsets topic does not exist; the worker makes it. Whether it may is asked by
   * validating its creation, which makes nothing.
   */
  private void checkOffsetsTopicCreate(Admin admin, int millis, List<Missing> missing, List<String> unasked,
      String why) throws InterruptedException {
    try {
      admin.createTopics(List.of(new NewTopic(offsetsTopic, Optional.empty(), Optional.empty())),
          new CreateTopicsOptions().validateOnly(true)).all().get(millis, TimeUnit.MILLISECONDS);
      // Write and Read on a topic not yet made cannot be seen; the next start asks them.
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicAuthorizationException
          || e.getCause() instanceof ClusterAuthorizationException) {
        // Describe is granted (a topic not described is refused as such, never as unknown); Write and Read cannot be
        // seen before the topic exists, and are not claimed missing.
        missing.add(new Missing(List.of(AclOperation.CREATE), ResourceType.TOPIC, offsetsTopic, PatternType.LITERAL,
            "the worker makes it on its first start (then Write and Read on it are needed too: " + why + ")"));
      } else {
        unasked.add("Topic " + offsetsTopic + ": " + reason(e.getCause()));
      }
    } catch (TimeoutException e) {
      unasked.add("Topic " + offsetsTopic + ": no answer within " + millis / 1000 + " s");
    }
  }

  private static List<AclOperation> ordered(Set<AclOperation> ops) {
    return List.of(AclOperation.CREATE, AclOperation.WRITE, AclOperation.READ, AclOperation.DESCRIBE).stream()
        .filter(ops::contains).toList();
  }

  private static String reason(Throwable e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }

  /**
   * The principal as a SASL PLAIN or SCRAM login names it (Kafka's default principal for them is
   * {@code User:<username>}); otherwise a placeholder, since a certificate's principal depends on the brokers' rules.
   */
  String principal() {
    String jaas = cluster.security().get("sasl.jaas.config");
    if (jaas != null) {
      Matcher m = Pattern.compile("username\\s*=\\s*\"([^\"]+)\"").matcher(jaas);
      if (m.find()) {
        return "User:" + m.group(1);
      }
    }
    return "User:<the workers' principal>";
  }

  /** One permission the principal lacks: what it must be allowed, on which resource, and why. */
  public record Missing(List<AclOperation> operations, ResourceType resourceType, String resourceName,
      PatternType patternType, String why) {

    /** The kafka-acls command that grants it, as docs/security.md writes them. */
    public String command(String bootstrapServers, String principal) {
      StringBuilder c = new StringBuilder("kafka-acls --bootstrap-server ").append(bootstrapServers)
          .append(" --command-config admin.properties --add --allow-principal ").append(principal);
      operations.forEach(op -> c.append(" --operation ").append(name(op)));
      c.append(resourceType == ResourceType.TOPIC ? " --topic " : " --transactional-id ").append(resourceName);
      if (patternType == PatternType.PREFIXED) {
        c.append(" --resource-pattern-type prefixed");
      }
      return c.toString();
    }

    /** The whole of it in one sentence, with the command that grants it. */
    public String sentence(String bootstrapServers, String principal) {
      List<String> names = operations.stream().map(Missing::name).toList();
      String ops = names.size() == 1 ? names.get(0)
          : String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.get(names.size() - 1);
      String type = resourceType == ResourceType.TOPIC ? "Topic" : "TransactionalId";
      return principal + " lacks " + ops + " on " + type + " " + resourceName + " (pattern type "
          + patternType.name().toLowerCase(Locale.ROOT) + "), needed because " + why + "; grant it with: "
          + command(bootstrapServers, principal);
    }

    private static String name(AclOperation op) {
      String n = op.name().toLowerCase(Locale.ROOT);
      return Character.toUpperCase(n.charAt(0)) + n.substring(1);
    }
  }

  /**
   * What the cluster answered.
   *
   * @param authorizes whether the cluster has an authorizer (nothing else is asked of one without, nor when the
   *     worker writes no transactions)
   * @param missing each permission the principal lacks
   * @param unasked questions the cluster did not answer, each with the reason
   */
  public record Report(boolean authorizes, List<Missing> missing, List<String> unasked) {}

  /** Each missing permission as one sentence, naming this worker's cluster and principal. */
  public List<String> sentences(Report report) {
    return report.missing().stream().map(m -> m.sentence(cluster.bootstrapServers(), principal())).toList();
  }
}
