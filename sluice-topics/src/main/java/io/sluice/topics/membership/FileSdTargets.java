package io.sluice.topics.membership;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The nodes' addresses of one component as a Prometheus {@code file_sd} target list, one group per node labelled
 * {@code sluice_node}: what each node's metrics server reads to scrape every exporter and alert every router, and what
 * an operator's own Prometheus can read from {@code sluice cluster targets}.
 */
public final class FileSdTargets {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private FileSdTargets() {}

  /** {@code [{"targets": ["host:port"], "labels": {"sluice_node": id}}, …]} of the nodes running {@code component}. */
  public static String json(List<Membership.Node> nodes, String component) {
    List<Map<String, Object>> groups = new ArrayList<>();
    for (Membership.Node n : nodes) {
      hostPort(n.components().get(component)).ifPresent(target -> {
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("targets", List.of(target));
        g.put("labels", Map.of("sluice_node", n.id()));
        groups.add(g);
      });
    }
    try {
      return JSON.writeValueAsString(groups) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes {@link #json} to {@code file} whole or not at all, so that a reader never sees half a list. */
  public static void write(Path file, List<Membership.Node> nodes, String component) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, json(nodes, component));
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** {@code host:port} of a URL or of a bare address; empty when there is none. */
  static Optional<String> hostPort(String address) {
    if (address == null || address.isBlank()) {
      return Optional.empty();
    }
    if (!address.contains("://")) {
      return Optional.of(address.split(",")[0].trim());
    }
    URI u = URI.create(address);
    return u.getPort() < 0 ? Optional.empty() : Optional.of(u.getHost() + ":" + u.getPort());
  }
}
