package io.sluice.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TextTableTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  @Test
  void aStreamedTableWithinOnePagePrintsAsTheWholeTableDoes() {
    TextTable.Streaming streamed = new TextTable("A", "B").streaming(out, 3);
    streamed.row("x", 1);
    streamed.row("longer", null);
    assertEquals("", bytes.toString(StandardCharsets.UTF_8), "held until the page is full or the table ends");
    streamed.finish();
    assertEquals(new TextTable("A", "B").row("x", 1).row("longer", null).render(),
        bytes.toString(StandardCharsets.UTF_8));
  }

  @Test
  void pastOnePageRowsArePrintedAsTheyComeInTheFirstPagesWidths() {
    TextTable.Streaming streamed = new TextTable("A", "B").streaming(out, 2);
    streamed.row("x", 1);
    streamed.row("yy", 2);
    streamed.row("z", 3);
    assertEquals("A   B\nx   1\nyy  2\nz   3\n", bytes.toString(StandardCharsets.UTF_8));
    streamed.row("wider", 4);
    assertEquals("A   B\nx   1\nyy  2\nz   3\nwider  4\n", bytes.toString(StandardCharsets.UTF_8),
        "a wider cell shifts its own line only");
    streamed.finish();
    assertEquals("A   B\nx   1\nyy  2\nz   3\nwider  4\n", bytes.toString(StandardCharsets.UTF_8));
  }
}
