package io.sluice.alerts.types;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Alerts by fingerprint, in insertion order (a replaced alert keeps its place, as in a {@code LinkedHashMap}). The
 * router holds every alert in several of these (the store, each aggregation group, the inhibitor's sources), so it
 * costs about 20 bytes an entry where a {@code HashMap<Long, Alert>} costs about 60: fingerprints stay primitive in a
 * dense array and an open-addressing index with linear probing points into it. Not thread-safe: owners lock.
 */
public final class AlertTable {
  private long[] fps;
  private Alert[] alerts;
  /** Dense positions in use, removed ones (null alerts) included until the next compaction. */
  private int end;
  private int size;
  /** position + 1 per slot, 0 for an empty slot; the length is a power of two, at least twice {@link #size}. */
  private int[] index;

  public AlertTable() {
    this(4);
  }

  public AlertTable(int expected) {
    int dense = Math.max(2, expected);
    fps = new long[dense];
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
    return slot < 0 ? null : alerts[index[slot] - 1];
  }

  /** Stores the alert under its fingerprint; returns the one it replaced, or null. */
  public Alert put(Alert alert) {
    long fp = alert.fingerprint();
    int slot = find(fp);
    if (slot >= 0) {
      int pos = index[slot] - 1;
      Alert old = alerts[pos];
      alerts[pos] = alert;
      return old;
    }
    if (end == fps.length) {
      if (end - size > end / 4) {
        compact();
      } else {
        int grown = end + Math.max(2, end / 2);
        fps = Arrays.copyOf(fps, grown);
        alerts = Arrays.copyOf(alerts, grown);
      }
    }
    if ((size + 1) * 2 > index.length) {
      rebuildIndex(index.length * 2);
    }
    fps[end] = fp;
    alerts[end] = alert;
    end++;
    size++;
    insertIndex(fp, end);
    return null;
  }

  public Alert remove(long fp) {
    int slot = find(fp);
    if (slot < 0) {
      return null;
    }
    int pos = index[slot] - 1;
    Alert old = alerts[pos];
    alerts[pos] = null;
    size--;
    deleteSlot(slot);
    if (size == 0) {
      end = 0;
    }
    return old;
  }

  /** Removes the alert stored under the fingerprint only if it is this very instance. */
  public boolean remove(long fp, Alert expected) {
    if (get(fp) != expected) {
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
        remove(fps[i]);
      }
    }
  }

  private int home(long fp) {
    return (int) ((fp * 0x9E3779B97F4A7C15L) >>> 32) & (index.length - 1);
  }

  private int find(long fp) {
    int mask = index.length - 1;
    for (int slot = home(fp); ; slot = (slot + 1) & mask) {
      int p = index[slot];
      if (p == 0) {
        return -1;
      }
      if (fps[p - 1] == fp && alerts[p - 1] != null) {
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
    index[slot] = positionPlusOne;
  }

  /** Backward-shift deletion: later entries of the probe run move up so lookups never need tombstones. */
  private void deleteSlot(int hole) {
    int mask = index.length - 1;
    int j = hole;
    while (true) {
      j = (j + 1) & mask;
      int p = index[j];
      if (p == 0) {
        break;
      }
      int h = home(fps[p - 1]);
      boolean stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (!stays) {
        index[hole] = p;
        hole = j;
      }
    }
    index[hole] = 0;
  }

  private void compact() {
    int n = 0;
    for (int i = 0; i < end; i++) {
      if (alerts[i] != null) {
        fps[n] = fps[i];
        alerts[n] = alerts[i];
        n++;
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
        insertIndex(fps[i], i + 1);
      }
    }
  }
}
