package io.sluice.ops.snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;

/**
 * Debezium's snapshot signals as its Kafka channel reads them: a record whose key is the source's {@code topic.prefix}
 * and whose value is {@code {"id": …, "type": …, "data": {…}}}, {@code data} as each action parses it
 * ({@code ExecuteSnapshot}, {@code PauseIncrementalSnapshot}, {@code ResumeIncrementalSnapshot}, {@code StopSnapshot}).
 */
public final class Signals {
  private static final ObjectMapper JSON = new ObjectMapper();
  public static final String EXECUTE = "execute-snapshot";
  public static final String PAUSE = "pause-snapshot";
  public static final String RESUME = "resume-snapshot";
  public static final String STOP = "stop-snapshot";

  private Signals() {}

  /** {@code execute-snapshot}: the tables, the type, and the filter as one additional condition per table. */
  public static ObjectNode execute(String id, SnapshotRequest request) {
    ObjectNode data = JSON.createObjectNode();
    ArrayNode tables = data.putArray("data-collections");
    request.tables().forEach(tables::add);
    data.put("type", request.type().lower());
    request.filter().ifPresent(f -> {
      ArrayNode conditions = data.putArray("additional-conditions");
      request.tables().forEach(t -> conditions.addObject().put("data-collection", t).put("filter", f));
    });
    return signal(id, EXECUTE, data);
  }

  /** {@code pause-snapshot} and {@code resume-snapshot} take no data: they act on the incremental snapshot running. */
  public static ObjectNode pause(String id) {
    return signal(id, PAUSE, JSON.createObjectNode());
  }

  public static ObjectNode resume(String id) {
    return signal(id, RESUME, JSON.createObjectNode());
  }

  /** {@code stop-snapshot} of the incremental snapshot: of the tables named, or of all of it when none are. */
  public static ObjectNode stop(String id, List<String> tables) {
    ObjectNode data = JSON.createObjectNode().put("type", "incremental");
    if (!tables.isEmpty()) {
      ArrayNode t = data.putArray("data-collections");
      tables.forEach(t::add);
    }
    return signal(id, STOP, data);
  }

  private static ObjectNode signal(String id, String type, ObjectNode data) {
    ObjectNode s = JSON.createObjectNode().put("id", id).put("type", type);
    s.set("data", data);
    return s;
  }

  /** The request an {@code execute-snapshot} signal carries; empty for any other signal or one that is malformed. */
  public static Optional<SnapshotRequest> request(JsonNode signal) {
    if (signal == null || !EXECUTE.equals(signal.path("type").asText())) {
      return Optional.empty();
    }
    JsonNode data = signal.path("data");
    List<String> tables = new java.util.ArrayList<>();
    data.path("data-collections").forEach(t -> tables.add(t.asText()));
    try {
      SnapshotRequest.Type type = data.hasNonNull("type") ? SnapshotRequest.Type.parse(data.get("type").asText())
          : SnapshotRequest.Type.INCREMENTAL;
      String filter = data.path("additional-conditions").path(0).path("filter").asText(null);
      return Optional.of(new SnapshotRequest(tables, type, Optional.ofNullable(filter)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
