package io.sluice.ops.reconcile;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The keys of the rows a first comparison found differing, for the lag window's re-check, which counts only rows that
 * differed before too. They go to a temporary file, segment by segment, rather than into memory (where a sink far
 * behind its source would put every row of the table); the re-check visits the same segments in the same order and
 * reads each one's keys back as it comes to it, so memory holds one segment's keys, at most the rows a segment is
 * compared with.
 */
final class DifferingKeys implements AutoCloseable {
  private final Path file;
  private DataOutputStream out;
  private DataInputStream in;
  /** While writing: the segment keys are added to. While reading: the next segment in the file, read ahead. */
  private int leaves = -1;
  private long segment;
  private boolean ahead;

  private DifferingKeys(Path file) throws IOException {
    this.file = file;
    this.out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16));
  }

  static DifferingKeys create() {
    try {
      Path file = Files.createTempFile("sluice-reconcile-", ".keys");
      file.toFile().deleteOnExit();
      return new DifferingKeys(file);
    } catch (IOException e) {
      throw new ReconcileException("cannot create a temporary file for the differing rows' keys: " + e.getMessage(),
          e);
    }
  }

  /**
   * Keys added from now on are of segment {@code id} of the {@code leaves}-th set of differing segments; segments come
   * in ascending order of both.
   */
  void segment(int leaves, long id) {
    this.leaves = leaves;
    this.segment = id;
    ahead = false;
  }

  void add(String key) {
    try {
      if (!ahead) {
        // A marker before each segment's first key: segments without a differing row take no room.
        out.writeBoolean(true);
        out.writeInt(leaves);
        out.writeLong(segment);
        ahead = true;
      }
      out.writeBoolean(false);
      byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
      out.writeInt(bytes.length);
      out.write(bytes);
    } catch (IOException e) {
      throw new ReconcileException("cannot write the differing rows' keys to " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The keys written for segment {@code id} of the {@code leaves}-th set; none when it had no differing row. Asked for
   * in the order they were written (segments may be passed over).
   */
  Set<String> keys(int leaves, long id) {
    try {
      if (out != null) {
        out.close();
        out = null;
        in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16));
        ahead = readHeader();
      }
      while (ahead && (this.leaves < leaves || (this.leaves == leaves && segment < id))) {
        skipKeys();
      }
      Set<String> keys = new HashSet<>();
      if (ahead && this.leaves == leaves && segment == id) {
        for (String key = nextKey(); key != null; key = nextKey()) {
          keys.add(key);
        }
      }
      return keys;
    } catch (IOException e) {
      throw new ReconcileException("cannot read the differing rows' keys from " + file + ": " + e.getMessage(), e);
    }
  }

  private boolean readHeader() throws IOException {
    try {
      if (!in.readBoolean()) {
        throw new IOException("corrupt: a key where a segment should begin");
      }
    } catch (EOFException end) {
      return false;
    }
    leaves = in.readInt();
    segment = in.readLong();
    return true;
  }

  /** The next key of the current segment, or null when it ends (the next segment's header then read ahead). */
  private String nextKey() throws IOException {
    boolean header;
    try {
      header = in.readBoolean();
    } catch (EOFException end) {
      ahead = false;
      return null;
    }
    if (header) {
      leaves = in.readInt();
      segment = in.readLong();
      return null;
    }
    byte[] bytes = new byte[in.readInt()];
    in.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private void skipKeys() throws IOException {
    while (nextKey() != null) {
      // passed over
    }
  }

  @Override
  public void close() {
    try {
      if (out != null) {
        out.close();
      }
      if (in != null) {
        in.close();
      }
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // a temporary file; deleteOnExit has it too
    }
  }
}
