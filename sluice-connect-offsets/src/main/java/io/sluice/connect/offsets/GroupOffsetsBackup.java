package io.sluice.connect.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer group's committed offsets, saved before something moves them (a sink connector's group by offset
 * surgery, a dead-letter replay's group by replay): {@code <dir>/<label>-<UTC timestamp>.csv} with one
 * {@code topic,partition,offset} line per partition, the file {@code kafka-consumer-groups --reset-offsets
 * --from-file} reads, so standard tooling puts the offsets back as well as {@code sluice offsets restore} does; and
 * beside it {@code <label>-<UTC timestamp>.manifest.json}: when, from which cluster, which group and connector, and
 * the SHA-256 of the .csv file. The manifest is not needed to read the file back; it makes a changed file detectable.
 */
public final class GroupOffsetsBackup {
  public static final String FORMAT = "sluice-group-offsets-backup/1";
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);
  private static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private final Path dir;
  private final Clock clock;

  /** What a backup says about itself; {@code connector} is null for a group no connector owns, {@code clusterId} when unknown. */
  public record Manifest(String format, Instant created, String clusterId, String group, String connector,
      long partitions, String sha256) {}

  /** A backup read back: its manifest (null for a bare .csv) and the offsets, in the file's order. */
  public record Backup(Path file, Manifest manifest, Map<TopicPartition, Long> offsets) {}

  public GroupOffsetsBackup(Path dir, Clock clock) {
    this.dir = dir;
    this.clock = clock;
  }

  /** Whether {@code file} is a backup of this kind rather than an offsets-topic one (.tsv). */
  public static boolean isGroupBackup(Path file) {
    return file.getFileName().toString().endsWith(".csv");
  }

  /** Writes {@code offsets} under a name made of {@code label} and the time; returns the file. */
  public Path write(String label, String clusterId, String group, String connector, Map<TopicPartition, Long> offsets) {
    Path file = dir.resolve(label.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + STAMP.format(clock.instant()) + ".csv");
    StringBuilder csv = new StringBuilder();
    offsets.keySet().stream().sorted(ORDER).forEach(tp ->
        csv.append(tp.topic()).append(',').append(tp.partition()).append(',').append(offsets.get(tp)).append('\n'));
    byte[] bytes = csv.toString().getBytes(StandardCharsets.UTF_8);
    try {
      Files.createDirectories(dir);
      // A backup that exists is complete: write aside, then rename; the manifest last, since it vouches for the file.
      atomicWrite(file, bytes);
      Manifest manifest = new Manifest(FORMAT, clock.instant(), clusterId, group, connector, offsets.size(),
          sha256(bytes));
      atomicWrite(manifestOf(file), JSON.writeValueAsBytes(toJson(manifest)));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the offsets backup " + file, e);
    }
  }

  /**
   * Reads a backup; refuses a file that does not match its manifest's checksum, or a line that is not
   * {@code topic,partition,offset}.
   */
  public static Backup read(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read offsets backup " + file, e);
    }
    Manifest manifest = manifest(file);
    if (manifest != null && !manifest.sha256().equals(sha256(bytes))) {
      throw new IllegalArgumentException("backup " + file + " does not match its manifest's SHA-256: it was changed"
          + " or truncated after it was written");
    }
    Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
    List<String> lines = new String(bytes, StandardCharsets.UTF_8).lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty()) {
        continue;
      }
      String[] parts = line.split(",");
      try {
        if (parts.length != 3) {
          throw new NumberFormatException();
        }
        offsets.put(new TopicPartition(parts[0].strip(), Integer.parseInt(parts[1].strip())),
            Long.parseLong(parts[2].strip()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(file + " line " + (i + 1) + " is not topic,partition,offset: " + line);
      }
    }
    return new Backup(file, manifest, offsets);
  }

  /** The manifest beside a backup file; null when there is none. */
  public static Manifest manifest(Path csv) {
    Path file = manifestOf(csv);
    if (!Files.exists(file)) {
      return null;
    }
    try {
      JsonNode n = JSON.readTree(file.toFile());
      return new Manifest(n.path("format").asText(), Instant.parse(n.path("created").asText()),
          textOrNull(n, "cluster_id"), textOrNull(n, "group"), textOrNull(n, "connector"),
          n.path("partitions").asLong(), n.path("sha256").asText());
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot read backup manifest " + file + ": " + e.getMessage(), e);
    }
  }

  public static Path manifestOf(Path csv) {
    String name = csv.getFileName().toString();
    String base = name.endsWith(".csv") ? name.substring(0, name.length() - 4) : name;
    return csv.resolveSibling(base + ".manifest.json");
  }

  private static String textOrNull(JsonNode n, String field) {
    JsonNode v = n.path(field);
    return v.isMissingNode() || v.isNull() ? null : v.asText();
  }

  private static JsonNode toJson(Manifest m) {
    ObjectNode n = JSON.createObjectNode();
    n.put("format", m.format()).put("created", m.created().toString()).put("cluster_id", m.clusterId())
        .put("group", m.group()).put("connector", m.connector()).put("partitions", m.partitions())
        .put("sha256", m.sha256());
    return n;
  }

  private static void atomicWrite(Path file, byte[] bytes) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(tmp, bytes);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
