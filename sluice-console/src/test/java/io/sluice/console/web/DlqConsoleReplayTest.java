package io.sluice.console.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.console.dlq.ReplayChoice;
import io.sluice.http.HttpRequest;
import io.sluice.http.HttpResponse;
import io.sluice.http.web.Role;
import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.ops.dlq.DeadLetterQueue;
import io.sluice.ops.dlq.ReplayClaim;
import io.sluice.serde.view.PayloadDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * A replay started from the console while the same replay group runs in another process (a CLI, another node's
 * console; here another {@link DeadLetterQueue}) gets the answer a second replay from this console gets: 409.
 */
class DlqConsoleReplayTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String EXCEPTION = "org.apache.kafka.connect.errors.DataException";

  private static DeadLetterQueue node() {
    return DeadLetterQueue.builder().bootstrapServers(SharedKafka.bootstrapServers()).build();
  }

  private static HttpRequest get(String param, String value) {
    return new HttpRequest("GET", "/", Map.of(), Map.of(param, List.of(value)), Optional.empty(), Map.of(),
        new byte[0], "127.0.0.1");
  }

  private static JsonNode body(HttpResponse r) throws Exception {
    return JSON.readTree(r.bodyText());
  }

  @Test
  void aReplayRunningInAnotherProcessIsBusyAsOneOfThisConsolesWouldBe() throws Exception {
    String original = SharedKafka.unique("console-orders");
    String dlqTopic = SharedKafka.unique("console-dlq");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(original, 1, (short) 1), new NewTopic(dlqTopic, 1, (short) 1)))
          .all().get();
    }
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
        Map.of("bootstrap.servers", SharedKafka.bootstrapServers()), new ByteArraySerializer(),
        new ByteArraySerializer());
        CheckedSends<byte[], byte[]> sends = CheckedSends.through(producer)) {
      for (int i = 0; i < 3; i++) {
        RecordHeaders h = new RecordHeaders();
        h.add("__connect.errors.topic", original.getBytes(StandardCharsets.UTF_8));
        h.add("__connect.errors.partition", "0".getBytes(StandardCharsets.UTF_8));
        h.add("__connect.errors.offset", String.valueOf(i).getBytes(StandardCharsets.UTF_8));
        h.add("__connect.errors.stage", "VALUE_CONVERTER".getBytes(StandardCharsets.UTF_8));
        h.add("__connect.errors.exception.class.name", EXCEPTION.getBytes(StandardCharsets.UTF_8));
        sends.send(new ProducerRecord<>(dlqTopic, 0, null, null, ("v" + i).getBytes(StandardCharsets.UTF_8), h));
      }
    }
    JsonNode ask = JSON.createObjectNode().put("name", dlqTopic).put("exception", EXCEPTION)
        .put("stage", "VALUE_CONVERTER");
    ReplayChoice same = ReplayChoice.group(dlqTopic, EXCEPTION, "VALUE_CONVERTER");

    try (DlqConsole console = new DlqConsole(node(), new PayloadDecoder(null), Clock.systemUTC())) {
      try (ReplayClaim elsewhere = node().claim(same.request())) {
        HttpResponse busy = console.act("replay", ask, "ops");
        assertEquals(409, busy.status(), busy.bodyText());
        String error = body(busy).path("error").asText();
        assertTrue(error.contains("another replay in group " + same.request().group() + " is running"), error);
        assertEquals(0, body(console.topic(get("topic", dlqTopic), Role.OPERATE)).path("replays").size(), "no job left behind");
      }

      HttpResponse started = console.act("replay", ask, "ops");
      assertEquals(202, started.status(), started.bodyText());
      String id = body(started).path("id").asText();
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      JsonNode status = body(console.replayStatus(get("id", id)));
      while (status.path("state").asText().equals("running") && System.nanoTime() < deadline) {
        Thread.sleep(50);
        status = body(console.replayStatus(get("id", id)));
      }
      assertEquals("done", status.path("state").asText(), status.toString());
      assertEquals(3, status.path("result").path("replayed").asInt(), "the group is free once the other run ended");
    }
  }
}
