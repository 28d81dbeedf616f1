package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.client.ConnectRestClient;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * A sink connector's position: its consumer group's committed offsets, read and written through Kafka Connect's
 * offsets API (KIP-875, Kafka 3.6 and later), where each entry is
 * {@code {"partition": {"kafka_topic": T, "kafka_partition": P}, "offset": {"kafka_offset": O}}}. Connect writes them
 * to the group itself, and only while the connector is stopped, so no task of it can commit over them.
 */
final class SinkOffsets {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ConnectRestClient api;

  SinkOffsets(ConnectRestClient api) {
    this.api = api;
  }

  /** The consumer group a sink connector's tasks share: Connect's {@code connect-<name>} unless overridden. */
  static String groupOf(String connector, JsonNode config) {
    String override = config.path("consumer.override.group.id").asText("").strip();
    return override.isEmpty() ? "connect-" + connector : override;
  }

  /** The committed offset of every partition the group has one for; empty when Connect has no offsets API. */
  Optional<Map<TopicPartition, Long>> committed(String connector) {
    return api.offsets(connector).map(SinkOffsets::parse);
  }

  /**
   * Sets the given partitions' offsets (the connector must be stopped); partitions not given keep theirs, and a null
   * offset removes the partition's, as Connect's API does with {@code "offset": null}.
   */
  void write(String connector, Map<TopicPartition, Long> offsets) {
    ObjectNode body = JSON.createObjectNode();
    ArrayNode list = body.putArray("offsets");
    offsets.forEach((tp, offset) -> {
      ObjectNode entry = list.addObject();
      entry.putObject("partition").put("kafka_topic", tp.topic()).put("kafka_partition", tp.partition());
      if (offset == null) {
        entry.putNull("offset");
      } else {
        entry.putObject("offset").put("kafka_offset", offset);
      }
    });
    api.patchOffsets(connector, body);
  }

  static Map<TopicPartition, Long> parse(JsonNode answer) {
    Map<TopicPartition, Long> out = new LinkedHashMap<>();
    for (JsonNode e : answer.path("offsets")) {
      JsonNode p = e.path("partition");
      JsonNode o = e.path("offset").path("kafka_offset");
      if (p.hasNonNull("kafka_topic") && p.path("kafka_partition").canConvertToInt() && o.canConvertToLong()) {
        out.put(new TopicPartition(p.path("kafka_topic").asText(), p.path("kafka_partition").asInt()), o.asLong());
      }
    }
    return out;
  }
}
