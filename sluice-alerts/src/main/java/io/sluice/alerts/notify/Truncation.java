package io.sluice.alerts.notify;

import java.nio.charset.StandardCharsets;

/**
 * Cutting a rendered text to a service's limit as Alertmanager cuts it: the kept part ends with "…" (which counts
 * towards the limit), and a character is never split.
 */
final class Truncation {
  static final String MARKER = "…";

  private Truncation() {}

  /** At most {@code n} characters (Unicode code points, Go's runes). */
  static String toRunes(String s, int n) {
    if (s.codePointCount(0, s.length()) <= n) {
      return s;
    }
    if (n <= 3) {
      return s.substring(0, s.offsetByCodePoints(0, n));
    }
    return s.substring(0, s.offsetByCodePoints(0, n - 1)) + MARKER;
  }

  /** At most {@code n} bytes of UTF-8, the marker's three included. */
  static String toBytes(String s, int n) {
    if (utf8(s) <= n) {
      return s;
    }
    if (n <= 3) {
      return n == 3 ? MARKER : ".".repeat(Math.max(n, 0));
    }
    // The longest prefix of at most n - 3 characters that fits in n - 3 bytes.
    int target = n - 3;
    int cut = 0;
    int bytes = 0;
    for (int runes = 0; cut < s.length() && runes < target; runes++) {
      int cp = s.codePointAt(cut);
      int size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (bytes + size > target) {
        break;
      }
      bytes += size;
      cut += Character.charCount(cp);
    }
    return s.substring(0, cut) + MARKER;
  }

  private static int utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}
