package io.sluice.alerts.labels;

/**
 * One copy of each common label name and value ("critical", a connector's name, an annotation's runbook URL) instead
 * of one per alert. A direct-mapped cache: a fixed array indexed by hash, where a newcomer replaces whatever sat in
 * its slot. It cannot grow, needs no lock (a String is safely published through its final fields), and adapts: values
 * seen once (an instance id) are soon evicted, values seen on every alert stay.
 */
public final class SharedStrings {
  private static final int SLOTS = 1 << 17;
  /** Longer strings are rarely repeated exactly and hashing them costs more than sharing saves. */
  private static final int MAX_LENGTH = 96;
  private static final String[] CACHE = new String[SLOTS];

  private SharedStrings() {}

  public static String share(String s) {
    if (s.length() > MAX_LENGTH) {
      return s;
    }
    int slot = s.hashCode() & (SLOTS - 1);
    String cached = CACHE[slot];
    if (cached != null && cached.equals(s)) {
      return cached;
    }
    CACHE[slot] = s;
    return s;
  }

  /** The shared string with these characters, made from them only when it is not cached yet (no garbage on a hit). */
  public static String share(char[] chars, int offset, int length) {
    if (length > MAX_LENGTH) {
      return new String(chars, offset, length);
    }
    int h = 0;
    for (int i = 0; i < length; i++) {
      h = 31 * h + chars[offset + i];
    }
    int slot = h & (SLOTS - 1);
    String cached = CACHE[slot];
    if (cached != null && cached.length() == length && sameChars(cached, chars, offset)) {
      return cached;
    }
    String s = new String(chars, offset, length);
    CACHE[slot] = s;
    return s;
  }

  private static boolean sameChars(String s, char[] chars, int offset) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) != chars[offset + i]) {
        return false;
      }
    }
    return true;
  }
}
