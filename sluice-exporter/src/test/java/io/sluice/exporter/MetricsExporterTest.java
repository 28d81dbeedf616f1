package io.sluice.exporter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.connect.ConnectRuntime;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.testing.RequiredTool;
import io.sluice.kafka.testing.SharedKafka;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exporter over a running pipeline, PostgreSQL → Debezium → Kafka → JDBC sink → PostgreSQL: every metric of the
 * contract appears with its labels and moves when the pipeline does. The steps share one pipeline and run in order,
 * as an operator's session would (a pipeline per step would cost a snapshot each).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MetricsExporterTest {
  @TempDir static Path dataDir;
  private static ConnectRuntime worker;
  private static MetricsExporter exporter;
  private static ConnectClient rest;
  private static Pipeline pipeline;
  private static String source;
  private static String sink;
  private static String dlq;
  private static final Duration WAIT = Duration.ofSeconds(120);

  @BeforeAll
  static void start() {
    worker = TestWorkers.worker(SharedKafka.unique("exporter"), dataDir).consumerInterceptor(MetricsExporter.FRESHNESS)
        .start();
    exporter = MetricsExporter.builder(worker).port(0).refreshInterval(Duration.ofSeconds(1)).start();
    rest = new ConnectClient(worker.restUrl());
    pipeline = new Pipeline(SharedKafka.unique("mx"));
    source = pipeline.name + "-source";
    sink = pipeline.name + "-sink";
    dlq = pipeline.name + "-dlq";
  }

  @AfterAll
  static void stop() {
    if (exporter != null) {
      exporter.close();
    }
    if (worker != null) {
      worker.close();
    }
  }

  /** pg_current_wal_lsn() − restart_lsn of the slot, as PostgreSQL computes it (from any database: slots are the
   * server's). */
  static long retainedWal(String slot) {
    try (Connection c = SharedPostgres.connect("postgres");
        PreparedStatement s = c.prepareStatement(
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint FROM pg_replication_slots "
                + "WHERE slot_name = ?")) {
      s.setString(1, slot);
      try (ResultSet rs = s.executeQuery()) {
        assertTrue(rs.next(), "no slot " + slot);
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Exposition scrape() {
    return Exposition.scrape(exporter.url());
  }

  /** Waits until a scrape satisfies the check, returning it; fails with the last exposition otherwise. */
  private static Exposition awaitScrape(String what, java.util.function.Predicate<Exposition> check) {
    return Eventually.await(what, WAIT, MetricsExporterTest::scrape, e -> {
      try {
        return check.test(e);
      } catch (AssertionError notYet) {
        return false;
      }
    });
  }

  private static final String POLL = "svc_connect_source_connector_metrics_source_record_poll_total";
  private static final String SEND = "svc_connect_sink_connector_metrics_sink_record_send_total";
  private static final String ERRORS = "svc_connect_connector_task_metrics_total_errors_logged_total";
  private static final String STATUS = "svc_connect_connector_status";
  private static final String RESTARTS = "svc_connect_connector_task_metrics_total_restarts_total";
  private static final String WRITTEN = "svc_cdc_freshness_write_seconds_count";

  @Test
  @Order(1)
  void everyContractMetricAppearsWithItsLabels() {
    pipeline.insert(1, 5);
    assertEquals(201, rest.create(source, pipeline.sourceConfig(pipeline.name + "_slot", Map.of())).status());
    Map<String, String> sinkConfig = new LinkedHashMap<>(pipeline.sinkConfig());
    // Sluice's JDBC sink (Debezium's, measuring its writes): the one bundled with sluice up.
    sinkConfig.put("connector.class", "io.sluice.sink.jdbc.SluiceJdbcSinkConnector");
    sinkConfig.put("errors.tolerance", "all");
    sinkConfig.put("errors.log.enable", "true");
    sinkConfig.put("errors.deadletterqueue.topic.name", dlq);
    sinkConfig.put("errors.deadletterqueue.topic.replication.factor", "1");
    sinkConfig.put("errors.deadletterqueue.context.headers.enable", "true");
    assertEquals(201, rest.create(sink, sinkConfig).status());
    rest.awaitRunning(source);
    rest.awaitRunning(sink);
    pipeline.awaitSinkMatchesSource();

    Exposition e = awaitScrape("every contract metric", x -> x.value(POLL, "connector", source, "task", "0",
        "pipeline", source) >= 5
        && x.value(SEND, "connector", sink, "task", "0", "pipeline", source) >= 5
        && x.value("svc_connect_task_offset_commit_success_total", "connector", source, "task", "0") > 0
        && x.value("svc_connect_task_offset_commit_success_total", "connector", sink, "task", "0") > 0
        && x.value("svc_cdc_freshness_commit_seconds_count", "connector", sink, "pipeline", source) >= 5
        && x.value("svc_cdc_freshness_write_seconds_count", "connector", sink, "pipeline", source) >= 5
        // Every record the sink read is committed, and the reading is from after that.
        && x.value("svc_connect_sink_consumer_lag", "connector", sink, "group", "connect-" + sink,
            "topic", pipeline.topic(), "partition", "0") == 0
        && x.first("svc_postgres_replication_slot_retained_wal_bytes", "connector", source).isPresent()
        && x.first("svc_debezium_behind_source_seconds", "connector", source).isPresent()
        && x.first("svc_connect_dlq_records_total", "connector", sink).isPresent()
        && x.first("svc_connect_task_transaction_timeout_seconds", "connector", source, "task", "0").isPresent());

    assertEquals(0, e.value(ERRORS, "connector", sink, "task", "0"));
    assertEquals(0, e.value(ERRORS, "connector", source, "task", "0"));
    // Exactly once: the source's guarantee, and its producer's transactions (committed, none aborted).
    assertEquals(1, e.value("svc_connect_connector_exactly_once", "connector", source));
    assertEquals(0, e.value("svc_connect_connector_exactly_once", "connector", sink));
    assertTrue(e.value("svc_kafka_producer_txn_commit_time_seconds_total", "connector", source, "task", "0") > 0);
    assertEquals(0, e.value("svc_kafka_producer_txn_abort_time_seconds_total", "connector", source, "task", "0"));
    assertTrue(e.value("svc_connect_source_task_metrics_transaction_size_max", "connector", source, "task", "0") >= 1);
    // Its transaction as the coordinator describes it: the producer's timeout (Kafka's default, 60 s), and an open
    // transaction's age within it (a source with nothing to write opens none).
    double timeout = e.value("svc_connect_task_transaction_timeout_seconds", "connector", source, "task", "0");
    assertEquals(60, timeout);
    double open = e.value("svc_connect_task_transaction_open_seconds", "connector", source, "task", "0");
    assertTrue(open >= 0 && open < timeout, "open for " + open + " s");
    assertTrue(e.first("svc_connect_task_transaction_open_seconds", "connector", sink).isEmpty(),
        "a sink writes no transactions");
    assertEquals(1, e.value(STATUS, "connector", source));
    assertEquals(1, e.value(STATUS + "_info", "connector", sink, "state", "RUNNING"));
    assertEquals(1, e.value(STATUS, "connector", sink, "pipeline", source), "the sink's status names its pipeline");
    assertEquals(0, e.value(RESTARTS, "connector", source, "task", "0"));
    double ratio = e.value("svc_connect_connector_task_metrics_running_ratio", "connector", sink, "task", "0");
    assertTrue(ratio > 0 && ratio <= 1, "running ratio " + ratio);
    assertEquals(0, e.value("svc_connect_task_offset_commit_failure_total", "connector", source, "task", "0"));
    double lastCommit = e.value("svc_connect_task_last_offset_commit_timestamp_seconds", "connector", sink,
        "task", "0");
    assertTrue(Math.abs(lastCommit - System.currentTimeMillis() / 1000.0) < 600, "last commit at " + lastCommit);
    e.value("svc_connect_source_task_metrics_poll_batch_avg_time_seconds", "connector", source, "task", "0");
    e.value("svc_connect_source_task_metrics_poll_batch_max_time_seconds", "connector", source, "task", "0");
    e.value("svc_connect_sink_task_metrics_put_batch_avg_time_seconds", "connector", sink, "task", "0");
    e.value("svc_connect_sink_task_metrics_put_batch_max_time_seconds", "connector", sink, "task", "0");

    e.value("svc_connect_sink_consumer_lag_timestamp_seconds", "connector", sink, "topic", pipeline.topic());
    assertEquals(pipeline.endOffset(), e.value("svc_topic_partition_current_offset", "topic", pipeline.topic(),
        "partition", "0"), 0.0);
    e.value("svc_topic_partition_current_offset_timestamp_seconds", "topic", pipeline.topic(), "partition", "0");

    // Each histogram's count covers every row; freshness of rows committed seconds ago is seconds, not hours. The
    // commit-based one is also under its old name, the same series.
    for (String histogram : List.of("svc_cdc_freshness_commit_seconds", "svc_cdc_freshness_write_seconds",
        "svc_cdc_freshness_seconds")) {
      double count = e.value(histogram + "_count", "connector", sink, "pipeline", source);
      assertTrue(count >= 5, histogram + " counted " + count);
      assertTrue(e.value(histogram + "_sum", "connector", sink, "pipeline", source) / count < 600, histogram);
      assertEquals(count, e.value(histogram + "_bucket", "connector", sink, "pipeline", source, "le", "+Inf"));
      assertTrue(e.value(histogram + "_bucket", "connector", sink, "pipeline", source, "le", "0.05")
          <= e.value(histogram + "_bucket", "connector", sink, "pipeline", source, "le", "1.0"), histogram);
    }
    assertEquals(e.value("svc_cdc_freshness_commit_seconds_count", "connector", sink, "pipeline", source),
        e.value("svc_cdc_freshness_seconds_count", "connector", sink, "pipeline", source));

    String slot = pipeline.name + "_slot";
    // The slot's retained WAL, read by the test from the server itself: equal to the exported value once a scrape
    // falls between two equal readings (the WAL position moves with any write, so one reading alone can race).
    Eventually.await("exported retained WAL equal to the server's", WAIT, () -> {
      long before = retainedWal(slot);
      double exported = scrape().value("svc_postgres_replication_slot_retained_wal_bytes", "connector", source,
          "slot", slot);
      long after = retainedWal(slot);
      return before == after && exported == after;
    }, Boolean::booleanValue);
    String walStatus = e.first("svc_postgres_replication_slot_wal_status", "connector", source, "slot", slot)
        .orElseThrow().labels().get("wal_status");
    assertTrue(Set.of("reserved", "extended", "unreserved").contains(walStatus), walStatus);
    assertEquals(-1, e.value("svc_postgres_max_slot_wal_keep_size_bytes", "connector", source));
    e.value("svc_postgres_replication_slot_retained_wal_bytes_timestamp_seconds", "connector", source);
    e.value("svc_debezium_behind_source_seconds", "connector", source);

    // No record went to the DLQ yet: the topic does not exist and the count is 0.
    assertEquals(0, e.value("svc_connect_dlq_records_total", "connector", sink, "topic", dlq));
  }

  @Test
  @Order(2)
  void pollAndSendTotalsGrowWithInsertedRows() {
    Exposition before = scrape();
    double polled = before.value(POLL, "connector", source);
    double sent = before.value(SEND, "connector", sink);
    pipeline.insert(100, 299);
    pipeline.awaitSinkMatchesSource();
    awaitScrape("200 more rows polled and sent", x -> x.value(POLL, "connector", source) >= polled + 200
        && x.value(SEND, "connector", sink) >= sent + 200);
  }

  @Test
  @Order(3)
  void pausingSetsStatusToZero() {
    assertEquals(202, rest.call("PUT", "/connectors/" + source + "/pause", null).status());
    Exposition paused = awaitScrape("status 0 while paused", x -> x.value(STATUS, "connector", source) == 0);
    assertEquals(1, paused.value(STATUS + "_info", "connector", source, "state", "PAUSED"));
    assertTrue(paused.first(STATUS + "_info", "connector", source, "state", "RUNNING").isEmpty());
    assertEquals(202, rest.call("PUT", "/connectors/" + source + "/resume", null).status());
    awaitScrape("status 1 after resume", x -> x.value(STATUS, "connector", source) == 1);
    // A resume is not a restart.
    assertEquals(0, scrape().value(RESTARTS, "connector", source, "task", "0"));
  }

  @Test
  @Order(4)
  void restRestartsIncrementTheRestartCounterAndSurviveAnExporterRestart() {
    double task = scrape().value(RESTARTS, "connector", sink, "task", "0");
    double instance = scrape().value(RESTARTS, "connector", sink, "task", "connector");
    double sent = scrape().value(SEND, "connector", sink, "task", "0");
    double written = scrape().value(WRITTEN, "connector", sink, "pipeline", source);
    assertEquals(202, rest.call("POST", "/connectors/" + sink + "/restart?includeTasks=true", null).status());
    // includeTasks restarts the connector instance as well as its task.
    awaitScrape("task and instance restart counted",
        x -> x.value(RESTARTS, "connector", sink, "task", "0") >= task + 1
            && x.value(RESTARTS, "connector", sink, "task", "connector") >= instance + 1);
    rest.awaitRunning(sink);
    assertEquals(204, rest.call("POST", "/connectors/" + sink + "/restart", null).status());
    awaitScrape("connector restart counted",
        x -> x.value(RESTARTS, "connector", sink, "task", "connector") >= instance + 2);
    rest.awaitRunning(sink);
    Exposition after = scrape();
    assertEquals(task + 1, after.value(RESTARTS, "connector", sink, "task", "0"));
    assertEquals(instance + 2, after.value(RESTARTS, "connector", sink, "task", "connector"));
    // Connect made the task's metrics again, counting from 0; the exported counter goes on from where it was.
    assertEquals(sent, awaitScrape("the restarted sink's send counter", x -> x.value(SEND, "connector", sink,
        "task", "0") >= 0).value(SEND, "connector", sink, "task", "0"));
    // The sink's plugin metrics too: the write freshness histogram goes on across the task's restarts.
    assertTrue(scrape().value(WRITTEN, "connector", sink, "pipeline", source) >= written);

    // A new exporter (as after a platform restart) derives the same counts from the status topic. (Only here does an
    // exporter stop before its worker's tasks: the new one counts their current values again, on top of the totals
    // the closed one wrote as final, which no later step looks at.)
    exporter.close();
    exporter = MetricsExporter.builder(worker).port(0).refreshInterval(Duration.ofSeconds(1)).start();
    awaitScrape("the same counts from the status topic", x ->
        x.value(RESTARTS, "connector", sink, "task", "0") == after.value(RESTARTS, "connector", sink, "task", "0")
        && x.value(RESTARTS, "connector", sink, "task", "connector")
            == after.value(RESTARTS, "connector", sink, "task", "connector"));
  }

  @Test
  @Order(5)
  void aPoisonRecordRaisesTheErrorCounterAndTheDlq() {
    double errors = scrape().value(ERRORS, "connector", sink, "task", "0");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
      producer.send(new ProducerRecord<>(pipeline.topic(), "{\"id\":1}", "this is not JSON")).get(30,
          TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    Exposition e = awaitScrape("error counted and record in the DLQ",
        x -> x.value(ERRORS, "connector", sink, "task", "0") >= errors + 1
            && x.value("svc_connect_dlq_records_total", "connector", sink, "topic", dlq) >= 1
            && x.value("svc_topic_partition_current_offset", "topic", dlq, "connector", sink) >= 1);
    e.value("svc_connect_dlq_records_total_timestamp_seconds", "connector", sink, "topic", dlq);
    assertEquals(1, e.value(STATUS, "connector", sink), "the sink tolerates the record and keeps running");
  }

  @Test
  @Order(6)
  void theExpositionPassesPromtoolAndServesOpenMetricsOnRequest() throws Exception {
    Exposition text = scrape();
    // Kept beside the build output for a person to read what a scrape looks like.
    java.nio.file.Files.writeString(Path.of("target", "exporter-sample.prom"), text.text());
    assertTrue(text.contentType().startsWith("text/plain; version=0.0.4"), text.contentType());
    Set<String> seen = new HashSet<>();
    for (Exposition.Sample s : text.samples()) {
      assertTrue(seen.add(s.name() + s.labels()), "duplicate series " + s.name() + s.labels());
    }
    Exposition om = Exposition.scrape(exporter.url(), "application/openmetrics-text; version=1.0.0");
    assertTrue(om.contentType().startsWith("application/openmetrics-text"), om.contentType());
    assertTrue(om.text().endsWith("# EOF\n"), "OpenMetrics ends with # EOF");

    Path promtool = RequiredTool.require("promtool", "Debian package prometheus");
    Process p = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectErrorStream(true).start();
    p.getOutputStream().write(text.text().getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    // Exit 1 is a parse error, 3 lint findings: neither is allowed, every name is in Prometheus' base units.
    assertEquals(0, p.exitValue(), "promtool check metrics:\n" + out);
    assertTrue(out.isBlank(), out);
  }

  @Test
  @Order(7)
  void theSeriesOfADeletedConnectorDisappear() {
    assertEquals(204, rest.call("DELETE", "/connectors/" + sink, null).status());
    Exposition e = awaitScrape("no series of the deleted sink",
        x -> x.samples().stream().noneMatch(s -> sink.equals(s.labels().get("connector"))));
    assertFalse(e.all(POLL, "connector", source).isEmpty(), "the source's series stay");
  }

  static List<String> names(Exposition e) {
    return e.samples().stream().map(Exposition.Sample::name).distinct().toList();
  }
}
