package io.sluice.registry.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.schema.SchemaFormats;
import io.sluice.schema.SchemaType;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The rule every node applies to the records of a group of writes (group commit): a record takes effect only at its
 * expected offset, and one after its group's first only right behind the group's previous record, taken effect. The
 * records go through {@link LogCodec} as they would through the log.
 */
class GroupRuleTest {
  private final RegistryState state = new RegistryState(SchemaFormats.all(), 1 << 20);

  private static LogEvent.Registered schema(String subject, int version, int id) {
    return new LogEvent.Registered(subject, version, id, SchemaType.AVRO,
        "{\"type\":\"record\",\"name\":\"R" + id + "\",\"fields\":[{\"name\":\"f\",\"type\":\"int\"}]}", List.of());
  }

  /** Applies a record at {@code offset} as the log reader does, after a round trip through the record's JSON. */
  private boolean apply(long offset, LogEvent event, long expected, String batch, int index) {
    LogCodec.Decoded d = LogCodec.decode(batch == null ? LogCodec.value(event, expected)
        : LogCodec.value(event, expected, batch, index));
    return state.apply(offset, d.expectedOffset(), d.batch(), d.batchIndex(), d.event());
  }

  @Test
  void aGroupLandedInPlaceTakesEffectWhole() {
    assertTrue(apply(0, schema("a", 1, 1), 0, "n-1", 0));
    assertTrue(apply(1, schema("b", 1, 2), 1, "n-1", 1));
    assertTrue(apply(2, schema("c", 1, 3), 2, "n-1", 2));
    assertEquals(3, state.maxId());
    assertEquals(List.of("a", "b", "c"), state.subjects(false));
  }

  @Test
  void aGroupBehindAnotherWritersRecordTakesNoEffect() {
    assertTrue(apply(0, schema("x", 1, 1), 0, null, 0));
    // The group decided against offset 0 and landed one later: the id 1 it handed out is taken.
    assertFalse(apply(1, schema("a", 1, 1), 0, "n-1", 0));
    assertFalse(apply(2, schema("b", 1, 2), 1, "n-1", 1));
    assertEquals(List.of("x"), state.subjects(false));
  }

  /**
   * Should a group's record go missing (a failed send) and another writer's record fill its offset, the group's later
   * records land at their expected offsets all the same; they were decided against the missing one, so they are skipped.
   */
  @Test
  void theRestOfAGroupIsSkippedOnceOneOfItIsMissing() {
    assertTrue(apply(0, schema("a", 1, 1), 0, "n-1", 0));
    // Record 1 of the group never landed; another node's record, decided at offset 1, did.
    assertTrue(apply(1, schema("other", 1, 2), 1, null, 0));
    assertFalse(apply(2, schema("c", 1, 3), 2, "n-1", 2));
    assertEquals(List.of("a", "other"), state.subjects(false));
    // Another group whose index 1 follows a record of another group is skipped too.
    assertFalse(apply(3, schema("d", 1, 3), 3, "m-7", 1));
    assertEquals(Optional.empty(), state.schemaById(3));
  }

  @Test
  void aRecordBehindItsGroupsSkippedRecordIsSkipped() {
    assertTrue(apply(0, schema("x", 1, 1), 0, null, 0));
    // The group decided at 1, but its first record landed at 2 (x's neighbour took 1): all of it lost the race.
    assertTrue(apply(1, schema("y", 1, 2), 1, null, 0));
    assertFalse(apply(2, schema("a", 1, 2), 1, "n-2", 0));
    // The next one lands at its own expected offset by chance: its predecessor took no effect, so neither does it.
    assertFalse(apply(3, schema("b", 1, 3), 3, "n-2", 2));
    assertFalse(apply(4, schema("c", 1, 4), 3, "n-2", 1));
    assertEquals(List.of("x", "y"), state.subjects(false));
  }

  @Test
  void recordsWithoutAGroupReadAsBefore() {
    // The value a node of the previous version writes: no batch fields.
    LogCodec.Decoded d = LogCodec.decode(LogCodec.value(schema("a", 1, 1), 0));
    assertEquals(null, d.batch());
    assertEquals(0, d.batchIndex());
    assertTrue(state.apply(0, d.expectedOffset(), d.batch(), d.batchIndex(), d.event()));
  }
}
