package io.sluice.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Percent-decoding of one path segment; unlike form decoding, '+' stays '+'. */
final class PathDecoder {
  private PathDecoder() {}

  static String decode(String segment) {
    if (segment.indexOf('%') < 0) {
      return segment;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(segment.length());
    for (int i = 0; i < segment.length(); i++) {
      char c = segment.charAt(i);
      if (c == '%' && i + 2 < segment.length()) {
        int hi = Character.digit(segment.charAt(i + 1), 16);
        int lo = Character.digit(segment.charAt(i + 2), 16);
        if (hi >= 0 && lo >= 0) {
          out.write((hi << 4) | lo);
          i += 2;
          continue;
        }
      }
      byte[] bytes = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
      out.write(bytes, 0, bytes.length);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
