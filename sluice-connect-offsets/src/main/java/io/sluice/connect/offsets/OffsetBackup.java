package io.sluice.connect.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Offset backups: {@code <dir>/<label>-<UTC timestamp>.tsv} with one {@code key<TAB>value} line per key, exactly as the
 * offsets topic holds them (what {@code kcat -K '\t'} prints; a tombstone is a key with an empty value), and next to
 * it {@code <label>-<UTC timestamp>.manifest.json}: when, from which cluster and topic, the topic's end offsets, the
 * record count and the SHA-256 of the .tsv file. Producing the lines back restores the positions.
 */
public final class OffsetBackup {
  public static final String FORMAT = "sluice-offsets-backup/1";
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final Path dir;
  private final Clock clock;

  /** What a backup file says about itself. {@code connector} is null for a backup of the whole topic. */
  public record Manifest(String format, Instant created, String clusterId, String topic, String connector,
      Map<Integer, Long> endOffsets, long records, long tombstones, String sha256) {}

  /**
   * A backup read back: its manifest (null for a bare .tsv file without one) and its records, one per key, in the
   * order of each key's last line.
   */
  public record Backup(Path file, Manifest manifest, List<OffsetRecord> records) {}

  public OffsetBackup(Path dir, Clock clock) {
    this.dir = dir;
    this.clock = clock;
  }

  /** Writes {@code snapshot} under a generated name; {@code connector} (null for all) names the file and manifest. */
  public Path write(String connector, OffsetsSnapshot snapshot) {
    String label = connector == null ? "all" : safe(connector);
    return write(dir.resolve(label + "-" + STAMP.format(clock.instant()) + ".tsv"), connector, snapshot);
  }

  /** Writes {@code snapshot} to {@code file} (a .tsv) and its manifest next to it; returns the file. */
  public Path write(Path file, String connector, OffsetsSnapshot snapshot) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      // A backup that exists is complete: write aside, then rename; the manifest last, since it vouches for the file.
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      MessageDigest digest = sha256();
      try (Writer w = new BufferedWriter(new OutputStreamWriter(new DigestOutputStream(Files.newOutputStream(tmp),
          digest), StandardCharsets.UTF_8), 1 << 16)) {
        for (OffsetRecord r : snapshot.records()) {
          w.write(r.toTsvLine());
          w.write('\n');
        }
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      Manifest manifest = new Manifest(FORMAT, clock.instant(), snapshot.clusterId(), snapshot.topic(), connector,
          snapshot.endOffsets(), snapshot.records().size(), snapshot.tombstones(), hex(digest));
      atomicWrite(manifestOf(file), JSON.writeValueAsBytes(toJson(manifest)));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write offset backup " + file, e);
    }
  }

  /**
   * Reads a backup line by line; refuses one whose contents do not match its manifest's checksum. A key on several
   * lines (a file of a topic's whole history, as {@code kcat} prints it) is kept once, at its last line: producing the
   * records back leaves the same positions, and what is held grows with the keys, not with the lines.
   */
  public static Backup read(Path file) {
    Manifest manifest = manifest(file);
    MessageDigest digest = sha256();
    Map<String, OffsetRecord> latest = new LinkedHashMap<>();
    String malformed = null;
    try (BufferedReader in = new BufferedReader(new InputStreamReader(new DigestInputStream(Files.newInputStream(file),
        digest), StandardCharsets.UTF_8), 1 << 16)) {
      int lineNo = 0;
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        lineNo++;
        if (line.isEmpty() || malformed != null) {
          continue;
        }
        int tab = line.indexOf('\t');
        if (tab <= 0) {
          // Read on to the end all the same: a file changed since its manifest is said as such first.
          malformed = file + " line " + lineNo + " is not key<TAB>value";
          latest.clear();
          continue;
        }
        String key = line.substring(0, tab);
        String value = line.substring(tab + 1);
        latest.remove(key);
        latest.put(key, new OffsetRecord(key, value.isEmpty() ? null : value, -1, -1));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read offset backup " + file, e);
    }
    if (manifest != null && !manifest.sha256().equals(hex(digest))) {
      throw new IllegalArgumentException("backup " + file + " does not match its manifest's SHA-256: it was changed"
          + " or truncated after it was written");
    }
    if (malformed != null) {
      throw new IllegalArgumentException(malformed);
    }
    return new Backup(file, manifest, new ArrayList<>(latest.values()));
  }

  /** The manifest of a backup file, without reading the file itself; null when there is none. */
  public static Manifest manifest(Path tsv) {
    Path file = manifestOf(tsv);
    try {
      return Files.exists(file) ? fromJson(JSON.readTree(file.toFile())) : null;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read backup manifest " + file, e);
    }
  }

  public static Path manifestOf(Path tsv) {
    String name = tsv.getFileName().toString();
    String base = name.endsWith(".tsv") ? name.substring(0, name.length() - 4) : name;
    return tsv.resolveSibling(base + ".manifest.json");
  }

  private static void atomicWrite(Path file, byte[] bytes) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(tmp, bytes);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static JsonNode toJson(Manifest m) {
    ObjectNode n = JSON.createObjectNode();
    n.put("format", m.format()).put("created", m.created().toString()).put("cluster_id", m.clusterId())
        .put("topic", m.topic()).put("connector", m.connector());
    ObjectNode ends = n.putObject("end_offsets");
    m.endOffsets().entrySet().stream().sorted(Map.Entry.comparingByKey())
        .forEach(e -> ends.put(String.valueOf(e.getKey()), e.getValue()));
    n.put("records", m.records()).put("tombstones", m.tombstones()).put("sha256", m.sha256());
    return n;
  }

  private static Manifest fromJson(JsonNode n) {
    Map<Integer, Long> ends = new HashMap<>();
    n.path("end_offsets").fields().forEachRemaining(e -> ends.put(Integer.parseInt(e.getKey()), e.getValue().asLong()));
    return new Manifest(n.path("format").asText(), Instant.parse(n.path("created").asText()),
        n.path("cluster_id").isNull() ? null : n.path("cluster_id").asText(null), n.path("topic").asText(null),
        n.path("connector").isNull() ? null : n.path("connector").asText(null), ends, n.path("records").asLong(),
        n.path("tombstones").asLong(), n.path("sha256").asText());
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String hex(MessageDigest digest) {
    return HexFormat.of().formatHex(digest.digest());
  }

  private static String safe(String name) {
    return name.replaceAll("[^A-Za-z0-9._-]", "_");
  }
}
