package io.sluice.alerts.types;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * Alerts by fingerprint, in insertion order (a replaced alert keeps its place, as in a {@code LinkedHashMap}). The
 * router holds every alert in several of these (the store, each aggregation group, the inhibitor's sources), so an
 * entry costs about 14 bytes where a {@code HashMap<Long, Alert>} costs about 60: a dense array of the alerts in
 * insertion order, and an open-addressing index (linear probing) of ints, each holding a position in the dense array
 * and 8 more bits of the fingerprint's hash, so a probe rarely has to look at an alert that is not the one sought.
 * Not thread-safe: owners lock.
 */
public final class AlertTable {
  private static final int POSITION_BITS = 24;
  private static final int POSITION_MASK = (1 << POSITION_BITS) - 1;
  private static final long MIX = 0x9E3779B97F4A7C15L;

  private Alert[] alerts;
  /** Dense positions in use, removed ones (null) included until the next compaction. */
  private int end;
  private int size;
  /**
   * Per slot: 0 when empty, else tag (8 bits of the hash) above position + 1. The length is a power of two and at
   * least 1.5 times {@link #size}.
   */
  private int[] index;

  public AlertTable() {
    this(4);
  }

  public AlertTable(int expected) {
    int dense = Math.max(2, expected);
    alerts = new Alert[dense];
    index = new int[Integer.highestOneBit(dense * 2 - 1) << 1];
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  public Alert get(long fp) {
    int slot = find(fp);
    return slot < 0 ? null : alerts[position(index[slot])];
  }

  /** Stores the alert under its fingerprint; returns the one it replaced, or null. */
  public Alert put(Alert alert) {
    long fp = alert.fingerprint();
    int slot = find(fp);
    if (slot >= 0) {
      int pos = position(index[slot]);
      Alert old = alerts[pos];
      alerts[pos] = alert;
      return old;
    }
    append(alert);
    return null;
  }

  /**
   * Stores what {@code update} makes of the alert stored under {@code fp} (null when there is none), with one lookup
   * where a get and a put take two: the store's merge of every posted alert. {@code update} must return an alert
   * with that fingerprint; when it throws, nothing changes.
   */
  public Alert update(long fp, UnaryOperator<Alert> update) {
    int slot = find(fp);
    if (slot >= 0) {
      int pos = position(index[slot]);
      Alert updated = update.apply(alerts[pos]);
      alerts[pos] = updated;
      return updated;
    }
    Alert added = update.apply(null);
    append(added);
    return added;
  }

  private void append(Alert alert) {
    long fp = alert.fingerprint();
    if (end == alerts.length) {
      if (end - size > end / 4) {
        compact();
      } else {
        if (end >= POSITION_MASK) {
          throw new IllegalStateException("more than " + POSITION_MASK + " alerts in one table");
        }
        alerts = Arrays.copyOf(alerts, Math.min(POSITION_MASK, end + Math.max(2, end / 2)));
      }
    }
    if ((size + 1) * 3 > index.length * 2) {
      rebuildIndex(index.length * 2);
    }
    alerts[end] = alert;
    end++;
    size++;
    insertIndex(fp, end);
  }

  public Alert remove(long fp) {
    int slot = find(fp);
    if (slot < 0) {
      return null;
    }
    int pos = position(index[slot]);
    Alert old = alerts[pos];
    alerts[pos] = null;
    size--;
    deleteSlot(slot);
    if (size == 0) {
      end = 0;
    }
    return old;
  }

  /** Removes the alert stored under the fingerprint only if it equals {@code expected}, as {@code Map.remove(k, v)}. */
  public boolean remove(long fp, Alert expected) {
    if (!expected.equals(get(fp))) {
      return false;
    }
    remove(fp);
    return true;
  }

  public void forEach(Consumer<Alert> action) {
    for (int i = 0; i < end; i++) {
      if (alerts[i] != null) {
        action.accept(alerts[i]);
      }
    }
  }

  /** The alerts in insertion order, copied. */
  public List<Alert> toList() {
    List<Alert> out = new ArrayList<>(size);
    forEach(out::add);
    return out;
  }

  /** The first alert, in insertion order, that meets the condition, or null. */
  public Alert first(Predicate<Alert> condition) {
    for (int i = 0; i < end; i++) {
      Alert a = alerts[i];
      if (a != null && condition.test(a)) {
        return a;
      }
    }
    return null;
  }

  public void removeIf(Predicate<Alert> condition) {
    for (int i = 0; i < end; i++) {
      Alert a = alerts[i];
      if (a != null && condition.test(a)) {
        remove(a.fingerprint());
      }
    }
  }

  private static int position(int entry) {
    return (entry & POSITION_MASK) - 1;
  }

  private int home(long fp) {
    return (int) ((fp * MIX) >>> 32) & (index.length - 1);
  }

  private static int tag(long fp) {
    return (int) ((fp * MIX) >>> 24) & 0xff;
  }

  private int find(long fp) {
    int mask = index.length - 1;
    int tag = tag(fp);
    for (int slot = home(fp); ; slot = (slot + 1) & mask) {
      int e = index[slot];
      if (e == 0) {
        return -1;
      }
      if (e >>> POSITION_BITS == tag && alerts[position(e)].fingerprint() == fp) {
        return slot;
      }
    }
  }

  private void insertIndex(long fp, int positionPlusOne) {
    int mask = index.length - 1;
    int slot = home(fp);
    while (index[slot] != 0) {
      slot = (slot + 1) & mask;
    }
    index[slot] = tag(fp) << POSITION_BITS | positionPlusOne;
  }

  /** Backward-shift deletion: later entries of the probe run move up so lookups never need tombstones. */
  private void deleteSlot(int hole) {
    int mask = index.length - 1;
    int j = hole;
    while (true) {
      j = (j + 1) & mask;
      int e = index[j];
      if (e == 0) {
        break;
      }
      int h = home(alerts[position(e)].fingerprint());
      boolean stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (!stays) {
        index[hole] = e;
        hole = j;
      }
    }
    index[hole] = 0;
  }

  private void compact() {
    int n = 0;
    for (int i = 0; i < end; i++) {
      if (alerts[i] != null) {
        alerts[n++] = alerts[i];
      }
    }
    Arrays.fill(alerts, n, end, null);
    end = n;
    rebuildIndex(index.length);
  }

  private void rebuildIndex(int length) {
    index = new int[length];
    for (int i = 0; i < end; i++) {
      if (alerts[i] != null) {
        insertIndex(alerts[i].fingerprint(), i + 1);
      }
    }
  }
}
