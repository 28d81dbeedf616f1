package io.sluice.console.schemas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.console.schemas.SideBySide.Kind;
import io.sluice.console.schemas.SideBySide.Row;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The subject list's pages and two versions side by side. */
class SchemaPiecesTest {
  @Test
  void subjectsArePagedSortedAndFilteredByAnyPartOfTheName() {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      names.add(String.format("topic-%04d-value", 4_999 - i));
    }
    SchemaConsole.Page<String> first = SchemaConsole.page(names, "", 1, 50);
    assertEquals(100, first.pages());
    assertEquals(5_000, first.total());
    assertEquals("topic-0000-value", first.items().get(0));
    assertEquals(50, first.items().size());
    SchemaConsole.Page<String> last = SchemaConsole.page(names, "", 100, 50);
    assertEquals("topic-4999-value", last.items().get(49));
    assertEquals(100, SchemaConsole.page(names, "", 999, 50).page(), "past the last page is the last");
    assertEquals(1, SchemaConsole.page(names, "", -3, 50).page());
    SchemaConsole.Page<String> found = SchemaConsole.page(names, "12", 1, 50);
    assertTrue(found.items().stream().allMatch(n -> n.contains("12")), found.items().toString());
    assertEquals(List.of("topic-0012-value"), SchemaConsole.page(names, "TOPIC-0012", 1, 50).items(),
        "case does not matter");
    SchemaConsole.Page<String> none = SchemaConsole.page(names, "orders", 1, 50);
    assertEquals(0, none.total());
    assertEquals(1, none.pages());
    assertEquals(List.of(), none.items());
  }

  @Test
  void anAddedFieldShowsAsAddedBesideTheUnchangedOnes() {
    String v1 = "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"}]}";
    String v2 = "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"},"
        + "{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"}]}";
    List<Row> rows = SideBySide.diff(SideBySide.pretty(v1), SideBySide.pretty(v2));
    assertTrue(rows.stream().anyMatch(r -> r.kind() == Kind.ADDED && r.right().contains("\"note\"")), rows.toString());
    assertTrue(rows.stream().filter(r -> r.kind() == Kind.SAME).anyMatch(r -> r.left().contains("\"id\"")));
    assertTrue(rows.stream().noneMatch(r -> r.kind() == Kind.REMOVED), rows.toString());
    // Every line of each side appears once, in order.
    assertEquals(SideBySide.pretty(v1).lines().toList(), rows.stream().filter(r -> r.left() != null).map(Row::left)
        .toList());
    assertEquals(SideBySide.pretty(v2).lines().toList(), rows.stream().filter(r -> r.right() != null)
        .map(Row::right).toList());
  }

  @Test
  void aReplacedLinePairsWithItsReplacementAndNumbersFollowEachSide() {
    List<Row> rows = SideBySide.diff("a\nb\nc\n", "a\nB\nc\nd\n");
    assertEquals(List.of(Kind.SAME, Kind.CHANGED, Kind.SAME, Kind.ADDED), rows.stream().map(Row::kind).toList());
    assertEquals("b", rows.get(1).left());
    assertEquals("B", rows.get(1).right());
    assertEquals(4, rows.get(3).rightNumber());
    assertEquals(null, rows.get(3).leftNumber());
    List<Row> removed = SideBySide.diff("x\ny\n", "y\n");
    assertEquals(List.of(Kind.REMOVED, Kind.SAME), removed.stream().map(Row::kind).toList());
  }

  @Test
  void aProtobufSchemaIsComparedAsWritten() {
    String proto = "syntax = \"proto3\";\nmessage Order {\n  string id = 1;\n}\n";
    assertEquals(proto, SideBySide.pretty(proto));
    assertEquals(4, SideBySide.diff(proto, proto).stream().filter(r -> r.kind() == Kind.SAME).count());
  }
}
