package io.sluice.registry.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

/** Byte fixtures written from Confluent's published description of the wire format. */
class WireFormatTest {
  @Test
  void magicByteThenTheIdBigEndianThenThePayload() {
    assertArrayEquals(new byte[] {0, 0, 0, 1, 0x2c, 7, 8}, WireFormat.frame(300, new byte[] {7, 8}));
    WireFormat.Framed f = WireFormat.unframe(new byte[] {0, 0x12, 0x34, 0x56, 0x78, 9});
    assertEquals(0x12345678, f.schemaId());
    assertEquals(1, f.payload().remaining());
    assertEquals(9, f.payload().get());
  }

  @Test
  void anythingElseIsRefusedAsConfluentRefusesIt() {
    assertEquals("Unknown magic byte!", assertThrows(SerializationException.class,
        () -> WireFormat.unframe(new byte[] {1, 0, 0, 0, 1})).getMessage());
    assertThrows(SerializationException.class, () -> WireFormat.unframe(new byte[] {0, 0, 1}));
  }

  @Test
  void protobufMessageIndexesAsZigZagVarints() {
    // The first top-level message: one byte 0.
    assertArrayEquals(new byte[] {0}, WireFormat.messageIndexes(List.of(0)));
    // [1]: count 1 -> 2, index 1 -> 2.
    assertArrayEquals(new byte[] {2, 2}, WireFormat.messageIndexes(List.of(1)));
    // [0, 1]: count 2 -> 4, 0 -> 0, 1 -> 2.
    assertArrayEquals(new byte[] {4, 0, 2}, WireFormat.messageIndexes(List.of(0, 1)));
    // [70]: zig-zag 140 needs two varint bytes (0x8c 0x01).
    assertArrayEquals(new byte[] {2, (byte) 0x8c, 1}, WireFormat.messageIndexes(List.of(70)));
    for (List<Integer> path : List.of(List.of(0), List.of(1), List.of(0, 1), List.of(70), List.of(3, 0, 12))) {
      ByteBuffer b = ByteBuffer.wrap(concat(WireFormat.messageIndexes(path), new byte[] {42}));
      assertEquals(path, WireFormat.readMessageIndexes(b));
      assertEquals(42, b.get(), "left at the payload");
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    return ByteBuffer.allocate(a.length + b.length).put(a).put(b).array();
  }
}
