package io.sluice.metrics.discovery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sluice.metrics.config.Config.StaticConfig;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prometheus' file-based service discovery: files (or globs in the file name) holding a list of target groups,
 * {@code [{"targets": ["host:port", …], "labels": {…}}]}, in JSON or YAML. As in Prometheus, a file that cannot be
 * read or parsed keeps the groups it last had, and a file that disappears drops its groups.
 */
public final class FileDiscovery {
  private static final Logger log = LoggerFactory.getLogger(FileDiscovery.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final Map<Path, List<StaticConfig>> lastGood = new ConcurrentHashMap<>();

  /** The target groups of every file matching {@code patterns}, in pattern order then file name order. */
  public List<StaticConfig> read(List<String> patterns) {
    List<StaticConfig> out = new ArrayList<>();
    for (String pattern : patterns) {
      for (Path file : matching(Path.of(pattern))) {
        out.addAll(groups(file));
      }
    }
    return out;
  }

  private static List<Path> matching(Path pattern) {
    String name = pattern.getFileName().toString();
    if (!name.contains("*")) {
      return Files.isRegularFile(pattern) ? List.of(pattern) : List.of();
    }
    Path dir = pattern.toAbsolutePath().getParent();
    List<Path> out = new ArrayList<>();
    if (Files.isDirectory(dir)) {
      try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, name)) {
        files.forEach(out::add);
      } catch (IOException e) {
        log.warn("file discovery cannot list {}: {}", dir, e.getMessage());
      }
    }
    out.sort(null);
    return out;
  }

  private List<StaticConfig> groups(Path file) {
    try {
      String text = Files.readString(file);
      JsonNode root = file.toString().toLowerCase(Locale.ROOT).endsWith(".json")
          ? JSON.readTree(text) : YAML.readTree(text);
      List<StaticConfig> groups = new ArrayList<>();
      if (root != null && !root.isNull() && !root.isMissingNode()) {
        if (!root.isArray()) {
          throw new IOException("expected a list of target groups");
        }
        for (JsonNode g : root) {
          List<String> targets = new ArrayList<>();
          for (JsonNode t : g.path("targets")) {
            if (t.asText().isBlank()) {
              throw new IOException("a target is empty");
            }
            targets.add(t.asText());
          }
          Map<String, String> labels = new LinkedHashMap<>();
          g.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
          groups.add(new StaticConfig(List.copyOf(targets), Map.copyOf(labels)));
        }
      }
      lastGood.put(file, List.copyOf(groups));
      return groups;
    } catch (IOException e) {
      List<StaticConfig> kept = lastGood.getOrDefault(file, List.of());
      log.warn("file discovery cannot read {} (keeping its {} last target groups): {}", file, kept.size(),
          e.getMessage());
      return kept;
    }
  }
}
