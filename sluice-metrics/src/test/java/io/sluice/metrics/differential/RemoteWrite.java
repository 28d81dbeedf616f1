package io.sluice.metrics.differential;

import io.sluice.metrics.model.Labels;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Prometheus remote write 1.0, the sender's side, for loading a real Prometheus with exactly the samples a test holds:
 * unlike the text formats, it carries any float64 bit pattern (stale markers, NaN, infinities), millisecond timestamps
 * and any label value. A WriteRequest protobuf, block-snappy framed with literals only (valid snappy, no compression).
 */
final class RemoteWrite {
  private RemoteWrite() {}

  /** One series' samples to send; {@code ts} ascending. */
  record Batch(Labels labels, long[] ts, double[] vs) {}

  static void send(HttpClient client, String url, List<Batch> series) throws IOException, InterruptedException {
    byte[] body = snappy(writeRequest(series));
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url))
        .header("Content-Type", "application/x-protobuf").header("Content-Encoding", "snappy")
        .header("X-Prometheus-Remote-Write-Version", "0.1.0")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new IOException("remote write answered " + r.statusCode() + ": " + r.body());
    }
  }

  /** WriteRequest{timeseries=1}; TimeSeries{labels=1, samples=2}; Label{name=1, value=2}; Sample{value=1, ts=2}. */
  static byte[] writeRequest(List<Batch> series) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Batch b : series) {
      ByteArrayOutputStream ts = new ByteArrayOutputStream();
      Map<String, String> sorted = new TreeMap<>(b.labels().toMap());
      sorted.forEach((n, v) -> {
        ByteArrayOutputStream l = new ByteArrayOutputStream();
        bytesField(l, 1, n.getBytes(StandardCharsets.UTF_8));
        bytesField(l, 2, v.getBytes(StandardCharsets.UTF_8));
        bytesField(ts, 1, l.toByteArray());
      });
      for (int i = 0; i < b.ts().length; i++) {
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        s.write(0x09);
        long bits = Double.doubleToRawLongBits(b.vs()[i]);
        for (int k = 0; k < 8; k++) {
          s.write((int) (bits >>> (8 * k)) & 0xff);
        }
        s.write(0x10);
        varint(s, b.ts()[i]);
        bytesField(ts, 2, s.toByteArray());
      }
      bytesField(out, 1, ts.toByteArray());
    }
    return out.toByteArray();
  }

  private static void bytesField(ByteArrayOutputStream out, int field, byte[] value) {
    out.write(field << 3 | 2);
    varint(out, value.length);
    out.writeBytes(value);
  }

  private static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) (v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.write((int) v);
  }

  /** Snappy's block format: the length as a varint, then literal elements of at most 65,536 bytes. */
  static byte[] snappy(byte[] raw) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    varint(out, raw.length);
    for (int off = 0; off < raw.length; off += 65_536) {
      int n = Math.min(65_536, raw.length - off);
      int m = n - 1;
      if (m < 60) {
        out.write(m << 2);
      } else if (m < 256) {
        out.write(60 << 2);
        out.write(m);
      } else {
        out.write(61 << 2);
        out.write(m & 0xff);
        out.write(m >>> 8);
      }
      out.write(raw, off, n);
    }
    return out.toByteArray();
  }
}
