package io.sluice.alerts.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Alertmanager's TruncateInRunes and TruncateInBytes, cases of its own tests and multi-byte text. */
class TruncationTest {
  @Test
  void runesCountCharactersNotCodeUnits() {
    assertEquals("abc", Truncation.toRunes("abc", 3));
    assertEquals("abc", Truncation.toRunes("abcd", 3), "up to three characters, no room for the marker");
    assertEquals("abc…", Truncation.toRunes("abcdef", 4));
    assertEquals("é😀é…", Truncation.toRunes("é😀éé😀", 4), "a character outside the BMP counts once");
  }

  @Test
  void bytesNeverSplitACharacter() {
    assertEquals("abc", Truncation.toBytes("abc", 3));
    assertEquals("…", Truncation.toBytes("abcd", 3));
    assertEquals("..", Truncation.toBytes("abcd", 2));
    assertEquals("a…", Truncation.toBytes("abcdef", 4));
    // "é" is two bytes: four bytes hold "éé" but only two are left beside the marker's three.
    assertEquals("é…", Truncation.toBytes("ééé", 5));
    assertEquals("é…", Truncation.toBytes("éééé", 6), "three bytes left: one é, not one and a half");
    assertEquals("😀…", Truncation.toBytes("😀😀", 7));
  }
}
