package io.sluice.app.cluster;

import io.sluice.app.cli.CommandError;
import io.sluice.app.cli.ExitCode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.cli.ClusterOptions;
import io.sluice.app.cli.OutputFormat;
import io.sluice.app.cli.TextTable;
import io.sluice.client.HttpTransport;
import io.sluice.connect.client.ConnectApiException;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.topics.Replication;
import io.sluice.topics.TopicLog;
import io.sluice.topics.membership.FileSdTargets;
import io.sluice.topics.membership.Membership;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code sluice cluster}: the nodes of a Sluice cluster, what each runs, and the Kafka brokers under them. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
    description = "The nodes of a Sluice cluster and the Kafka brokers under them.",
    subcommands = {ClusterCommand.Status.class, ClusterCommand.Targets.class})
public final class ClusterCommand implements Runnable {
  static final int OK = ExitCode.OK.code();
  /** Status: the cluster is not whole. */
  static final int NOT_WHOLE = ExitCode.NO.code();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** The live nodes as the cluster topic holds them. */
  static Membership watch(ClusterOptions cluster) {
    return Membership.watch(cluster.cluster(), cluster.clusterTopic(), TIMEOUT);
  }

  /**
   * {@code sluice cluster status}: every node (live, or gone within the topic's memory), its components and the
   * connectors and tasks it runs; the brokers, and the partitions whose replicas are out of sync.
   */
  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "List the nodes, their components, the connectors and tasks each runs, and the Kafka brokers "
          + "with under-replicated partitions. Exit 0 when every node is live and no partition is under-replicated, "
          + "1 otherwise, 4 when Kafka cannot be reached.")
  static final class Status implements Callable<Integer> {
    @Mixin ClusterOptions cluster;
    @Mixin OutputFormat output;
    PrintStream out = System.out;
    PrintStream err = System.err;

    /** One node and the work Connect has given it. */
    record NodeView(Membership.Node node, boolean live, Instant lastSeen, List<String> connectors,
        List<String> tasks) {}

    /** One broker: its address and how many of the partitions it holds a replica of it is out of sync for. */
    record BrokerView(int id, String address, int replicas, int outOfSync, int leaderOf) {}

    @Override
    public Integer call() {
      List<Membership.Seen> seen;
      Set<String> live;
      try (Membership m = watch(cluster)) {
        seen = m.all();
        live = m.live().stream().map(Membership.Node::id).collect(Collectors.toSet());
      } catch (TopicLog.TopicLogException e) {
        err.println("error: " + e.getMessage() + (e.timedOut() ? "" : " (is any sluice up running on "
            + cluster.bootstrapServers() + "?)"));
        if (e.timedOut()) {
          throw e;
        }
        return NOT_WHOLE;
      }
      Map<String, List<String>> connectorsOn = new TreeMap<>();
      Map<String, List<String>> tasksOn = new TreeMap<>();
      String connectProblem = work(seen, live, connectorsOn, tasksOn);
      List<BrokerView> brokers;
      int underReplicated;
      List<Replication.Weak> weak;
      try (Admin admin = Admin.create(cluster.cluster().clientConfig(Map.of("client.id", "sluice-cluster-status")))) {
        Map<String, TopicDescription> topics = admin.describeTopics(admin.listTopics(
            new ListTopicsOptions().listInternal(true)).names().get(30, TimeUnit.SECONDS))
            .allTopicNames().get(30, TimeUnit.SECONDS);
        List<Node> nodes = new ArrayList<>(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS));
        nodes.sort((a, b) -> Integer.compare(a.id(), b.id()));
        brokers = new ArrayList<>();
        underReplicated = 0;
        for (TopicDescription t : topics.values()) {
          for (TopicPartitionInfo p : t.partitions()) {
            underReplicated += p.isr().size() < p.replicas().size() ? 1 : 0;
          }
        }
        for (Node n : nodes) {
          int replicas = 0;
          int outOfSync = 0;
          int leads = 0;
          for (TopicDescription t : topics.values()) {
            for (TopicPartitionInfo p : t.partitions()) {
              if (p.replicas().stream().anyMatch(r -> r.id() == n.id())) {
                replicas++;
                outOfSync += p.isr().stream().noneMatch(r -> r.id() == n.id()) ? 1 : 0;
              }
              leads += p.leader() != null && p.leader().id() == n.id() ? 1 : 0;
            }
          }
          brokers.add(new BrokerView(n.id(), n.host() + ":" + n.port(), replicas, outOfSync, leads));
        }
        weak = Replication.weak(admin, cluster.stateTopics(), 30_000);
      } catch (ExecutionException | TimeoutException e) {
        throw CommandError.unreachable("cannot describe the Kafka cluster at " + cluster.bootstrapServers() + ": "
            + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ExitCode.INTERRUPTED.code();
      }
      List<NodeView> views = new ArrayList<>();
      for (Membership.Seen s : seen) {
        String id = s.node().id();
        views.add(new NodeView(s.node(), live.contains(id), s.lastSeen(),
            connectorsOn.getOrDefault(id, List.of()), tasksOn.getOrDefault(id, List.of())));
      }
      if (output.json()) {
        printJson(views, brokers, underReplicated, weak, connectProblem);
      } else {
        printTables(views, brokers, underReplicated, weak, connectProblem);
      }
      boolean healthy = views.stream().allMatch(NodeView::live) && underReplicated == 0 && connectProblem == null
          && weak.isEmpty();
      return healthy ? OK : NOT_WHOLE;
    }

    /**
     * Which node runs which connector and task, from the status Connect reports (its worker ids are the workers' REST
     * addresses, which each node's card names). Returns why that could not be read, or null.
     */
    private String work(List<Membership.Seen> seen, Set<String> live, Map<String, List<String>> connectorsOn,
        Map<String, List<String>> tasksOn) {
      Map<String, String> nodeOfWorker = new LinkedHashMap<>();
      String connectUrl = cluster.connectUrlGiven() ? cluster.connectUrl() : null;
      for (Membership.Seen s : seen) {
        String url = s.node().components().get("connect");
        if (url != null) {
          URI u = URI.create(url);
          nodeOfWorker.put(u.getHost() + ":" + u.getPort(), s.node().id());
          if (connectUrl == null && live.contains(s.node().id())) {
            connectUrl = url;
          }
        }
      }
      if (connectUrl == null) {
        return "no live node runs Connect";
      }
      JsonNode expanded;
      try {
        expanded = new ConnectRestClient(connectUrl, cluster.clientOptions()).connectorsExpanded();
      } catch (HttpTransport.UnreachableException | ConnectApiException e) {
        return "Connect at " + connectUrl + ": " + e.getMessage();
      }
      expanded.fields().forEachRemaining(e -> {
        JsonNode status = e.getValue().path("status");
        String worker = status.path("connector").path("worker_id").asText("");
        connectorsOn.computeIfAbsent(nodeOfWorker.getOrDefault(worker, worker), k -> new ArrayList<>())
            .add(e.getKey() + " " + status.path("connector").path("state").asText());
        for (JsonNode t : status.path("tasks")) {
          String w = t.path("worker_id").asText("");
          tasksOn.computeIfAbsent(nodeOfWorker.getOrDefault(w, w), k -> new ArrayList<>())
              .add(e.getKey() + "-" + t.path("id").asInt() + " " + t.path("state").asText());
        }
      });
      return null;
    }

    private void printTables(List<NodeView> views, List<BrokerView> brokers, int underReplicated,
        List<Replication.Weak> weak, String connectProblem) {
      long liveCount = views.stream().filter(NodeView::live).count();
      out.println("Nodes: " + liveCount + " live" + (views.size() > liveCount
          ? ", " + (views.size() - liveCount) + " not heard from" : ""));
      TextTable nodes = new TextTable("NODE", "STATE", "STARTED", "LAST SEEN", "COMPONENTS");
      for (NodeView v : views) {
        nodes.row(v.node().id(), v.live() ? "live" : "gone", v.node().started().toString(), v.lastSeen().toString(),
            v.node().components().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(" ")));
      }
      nodes.print(out);
      out.println();
      out.println("Work:");
      TextTable work = new TextTable("NODE", "CONNECTORS", "TASKS");
      for (NodeView v : views) {
        work.row(v.node().id(), String.join(", ", v.connectors()), String.join(", ", v.tasks()));
      }
      work.print(out);
      if (connectProblem != null) {
        out.println("  (" + connectProblem + ")");
      }
      out.println();
      out.println("Kafka brokers: " + brokers.size() + ", under-replicated partitions: " + underReplicated);
      TextTable b = new TextTable("BROKER", "ADDRESS", "REPLICAS", "OUT OF SYNC", "LEADER OF");
      brokers.forEach(x -> b.row(x.id(), x.address(), x.replicas(), x.outOfSync(), x.leaderOf()));
      b.print(out);
      for (Replication.Weak w : weak) {
        out.println("warning: " + w);
      }
    }

    private void printJson(List<NodeView> views, List<BrokerView> brokers, int underReplicated,
        List<Replication.Weak> weak, String connectProblem) {
      ObjectMapper json = new ObjectMapper();
      ObjectNode root = json.createObjectNode();
      ArrayNode nodes = root.putArray("nodes");
      for (NodeView v : views) {
        ObjectNode n = nodes.addObject().put("id", v.node().id()).put("live", v.live())
            .put("started", v.node().started().toString()).put("lastSeen", v.lastSeen().toString());
        ObjectNode c = n.putObject("components");
        v.node().components().forEach(c::put);
        v.connectors().forEach(n.putArray("connectors")::add);
        ArrayNode tasks = n.putArray("tasks");
        v.tasks().forEach(tasks::add);
      }
      ArrayNode bs = root.putArray("brokers");
      brokers.forEach(x -> bs.addObject().put("id", x.id()).put("address", x.address()).put("replicas", x.replicas())
          .put("outOfSync", x.outOfSync()).put("leaderOf", x.leaderOf()));
      root.put("underReplicatedPartitions", underReplicated);
      ArrayNode weakTopics = root.putArray("weakTopics");
      weak.forEach(w -> weakTopics.addObject().put("topic", w.topic()).put("replicas", w.replicas())
          .put("minInSyncReplicas", w.minInSync()).put("wantedReplicas", w.wantedReplicas())
          .put("wantedMinInSyncReplicas", w.wantedInSync()));
      if (connectProblem != null) {
        root.put("connectError", connectProblem);
      }
      OutputFormat.printJson(out, root);
    }
  }

  /**
   * {@code sluice cluster targets COMPONENT}: the live nodes' addresses of one component as a Prometheus file_sd list,
   * for an operator's own Prometheus ({@code file_sd_configs}) to scrape every exporter or alert every router.
   */
  @Command(name = "targets", mixinStandardHelpOptions = true,
      description = "Print the live nodes' addresses of one component (exporter, alerts, metrics, registry, "
          + "connect, ui) as a Prometheus file_sd target list.")
  static final class Targets implements Callable<Integer> {
    @Mixin ClusterOptions cluster;

    @Parameters(index = "0", paramLabel = "COMPONENT", defaultValue = "exporter",
        description = "exporter (default), alerts, metrics, registry, connect or ui")
    String component;

    @Override
    public Integer call() {
      if (!Set.of("exporter", "alerts", "metrics", "registry", "connect", "ui").contains(component)) {
        throw CommandError.usage("unknown component " + component + " (exporter, alerts, metrics, registry, connect, ui)");
      }
      // A cluster topic out of reach or missing goes up to CommandErrors: unreachable or refused.
      try (Membership m = watch(cluster)) {
        System.out.print(FileSdTargets.json(m.live(), component));
        return OK;
      }
    }
  }
}
