package io.sluice.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Percent-decoding of a path; unlike form decoding, '+' stays '+'. A '%' not followed by two hex digits is refused,
 * as Go's and Jetty's servers refuse it, rather than guessed at.
 */
final class PathDecoder {
  private PathDecoder() {}

  static String decode(String segment) {
    if (segment.indexOf('%') < 0) {
      return segment;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(segment.length());
    for (int i = 0; i < segment.length(); i++) {
      char c = segment.charAt(i);
      if (c == '%') {
        boolean complete = i + 2 < segment.length();
        int hi = complete ? Character.digit(segment.charAt(i + 1), 16) : -1;
        int lo = complete ? Character.digit(segment.charAt(i + 2), 16) : -1;
        if (hi < 0 || lo < 0) {
          String bad = segment.substring(i, Math.min(segment.length(), i + 3));
          throw MalformedRequestException.badPath(segment, "invalid URL escape \"" + bad + "\"");
        }
        out.write((hi << 4) | lo);
        i += 2;
        continue;
      }
      byte[] bytes = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
      out.write(bytes, 0, bytes.length);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
