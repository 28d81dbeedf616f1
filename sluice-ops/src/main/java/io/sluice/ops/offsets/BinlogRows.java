package io.sluice.ops.offsets;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.DeleteRowsEventData;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.UpdateRowsEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How many rows one row event of a MySQL or MariaDB binary log holds. {@code SHOW BINLOG EVENTS} does not say, so this
 * reads the log as a replica does (Debezium's own binlog client, with the replication privileges its connector user
 * has), from the start of the event's transaction so that the table map needed to decode the rows comes first.
 */
final class BinlogRows {
  private static final long TIMEOUT_SECONDS = 30;

  private BinlogRows() {}

  /** The rows of {@code rowsEvent}, reading from {@code file}:{@code from} (at or before it, in the same file). */
  static int count(SourceDatabase source, String file, long from, BinlogEvents.Event rowsEvent) {
    InetSocketAddress address = source.address(3306);
    BinaryLogClient client = new BinaryLogClient(address.getHostString(), address.getPort(), source.user(),
        source.password() == null ? "" : source.password());
    // A server id of its own, far from the small ids replicas and connectors are usually given, so that the server
    // does not drop another replica with the same id while this one reads.
    client.setServerId(ThreadLocalRandom.current().nextLong(1L << 30, 1L << 31));
    client.setBinlogFilename(file);
    client.setBinlogPosition(from);
    client.setKeepAlive(false);
    EventDeserializer deserializer = new EventDeserializer();
    // Row values are only counted: decoding them as raw bytes and numbers cannot fail on a column type.
    deserializer.setCompatibilityMode(EventDeserializer.CompatibilityMode.DATE_AND_TIME_AS_LONG,
        EventDeserializer.CompatibilityMode.CHAR_AND_BINARY_AS_BYTE_ARRAY);
    client.setEventDeserializer(deserializer);
    CompletableFuture<Integer> rows = new CompletableFuture<>();
    client.registerEventListener(event -> {
      if (event.getHeader() instanceof EventHeaderV4 h && h.getPosition() == rowsEvent.pos()) {
        EventData data = event.getData();
        if (data instanceof WriteRowsEventData w) {
          rows.complete(w.getRows().size());
        } else if (data instanceof UpdateRowsEventData u) {
          rows.complete(u.getRows().size());
        } else if (data instanceof DeleteRowsEventData d) {
          rows.complete(d.getRows().size());
        } else {
          rows.completeExceptionally(new IllegalArgumentException("the event at " + rowsEvent.file() + ":"
              + rowsEvent.pos() + " is not a row event the binlog client can read (" + h.getEventType() + ")"));
        }
      } else if (event.getHeader() instanceof EventHeaderV4 h && h.getNextPosition() > rowsEvent.end()
          && h.getNextPosition() != 0) {
        rows.completeExceptionally(new IllegalArgumentException("the binary log went past " + rowsEvent.file() + ":"
            + rowsEvent.pos() + " without an event starting there"));
      }
    });
    try {
      client.connect(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
      return rows.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IllegalArgumentException iae ? iae
          : new IllegalArgumentException(e.getCause().getMessage(), e.getCause());
    } catch (IOException | TimeoutException e) {
      throw new IllegalArgumentException("cannot read the rows of the event at " + rowsEvent.file() + ":"
          + rowsEvent.pos() + " from " + source + " as a replica (" + e.getMessage() + "; it needs the REPLICATION"
          + " SLAVE privilege a Debezium user has)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      try {
        client.disconnect();
      } catch (IOException e) {
        // Nothing was written; a connection that does not close cleanly is the server's to drop.
      }
    }
  }
}
