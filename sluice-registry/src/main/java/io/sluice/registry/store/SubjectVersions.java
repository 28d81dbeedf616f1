package io.sluice.registry.store;

import java.util.Arrays;
import java.util.function.IntConsumer;
import java.util.function.IntPredicate;

/**
 * The versions of one subject, ascending, each with the id it holds and whether it is soft-deleted: three parallel
 * arrays rather than an object per version, since a registry may hold hundreds of thousands of versions (about 9 bytes
 * each here, against some 90 as a sorted map of records). Immutable: every change returns a copy, which costs little
 * because changes are rare next to reads.
 */
final class SubjectVersions {
  static final SubjectVersions EMPTY = new SubjectVersions(new int[0], new int[0], new boolean[0]);

  private final int[] versions;
  private final int[] ids;
  private final boolean[] deleted;

  private SubjectVersions(int[] versions, int[] ids, boolean[] deleted) {
    this.versions = versions;
    this.ids = ids;
    this.deleted = deleted;
  }

  int size() {
    return versions.length;
  }

  boolean isEmpty() {
    return versions.length == 0;
  }

  int version(int index) {
    return versions[index];
  }

  int id(int index) {
    return ids[index];
  }

  boolean deleted(int index) {
    return deleted[index];
  }

  /** Where {@code version} is; negative (as {@link Arrays#binarySearch}) when the subject does not hold it. */
  int indexOf(int version) {
    return Arrays.binarySearch(versions, version);
  }

  boolean anyLive() {
    for (boolean d : deleted) {
      if (!d) {
        return true;
      }
    }
    return false;
  }

  /** With {@code version} holding {@code id}, live; a version of that number already there is replaced. */
  SubjectVersions with(int version, int id) {
    int at = indexOf(version);
    if (at >= 0) {
      int[] newIds = ids.clone();
      boolean[] newDeleted = deleted.clone();
      newIds[at] = id;
      newDeleted[at] = false;
      return new SubjectVersions(versions, newIds, newDeleted);
    }
    int insert = -at - 1;
    int n = versions.length;
    int[] newVersions = new int[n + 1];
    int[] newIds = new int[n + 1];
    boolean[] newDeleted = new boolean[n + 1];
    System.arraycopy(versions, 0, newVersions, 0, insert);
    System.arraycopy(ids, 0, newIds, 0, insert);
    System.arraycopy(deleted, 0, newDeleted, 0, insert);
    newVersions[insert] = version;
    newIds[insert] = id;
    System.arraycopy(versions, insert, newVersions, insert + 1, n - insert);
    System.arraycopy(ids, insert, newIds, insert + 1, n - insert);
    System.arraycopy(deleted, insert, newDeleted, insert + 1, n - insert);
    return new SubjectVersions(newVersions, newIds, newDeleted);
  }

  /** With the version at {@code index} soft-deleted. */
  SubjectVersions softDeleted(int index) {
    boolean[] newDeleted = deleted.clone();
    newDeleted[index] = true;
    return new SubjectVersions(versions, ids, newDeleted);
  }

  /** With every version soft-deleted. */
  SubjectVersions allSoftDeleted() {
    boolean[] newDeleted = new boolean[deleted.length];
    Arrays.fill(newDeleted, true);
    return new SubjectVersions(versions, ids, newDeleted);
  }

  /**
   * Without the soft-deleted versions below {@code version} that hold {@code id}: registering a schema again after
   * soft-deleting it removes them for good. Hands each removed version's id to {@code removed}.
   */
  SubjectVersions withoutSoftDeletedBelow(int version, int id, IntConsumer removed) {
    return without(i -> deleted[i] && ids[i] == id && versions[i] < version, removed);
  }

  /** Without the version at {@code index}; hands its id to {@code removed}. */
  SubjectVersions without(int index, IntConsumer removed) {
    return without(i -> i == index, removed);
  }

  private SubjectVersions without(IntPredicate drop, IntConsumer removed) {
    int kept = 0;
    for (int i = 0; i < versions.length; i++) {
      if (!drop.test(i)) {
        kept++;
      }
    }
    if (kept == versions.length) {
      return this;
    }
    int[] newVersions = new int[kept];
    int[] newIds = new int[kept];
    boolean[] newDeleted = new boolean[kept];
    int j = 0;
    for (int i = 0; i < versions.length; i++) {
      if (drop.test(i)) {
        removed.accept(ids[i]);
      } else {
        newVersions[j] = versions[i];
        newIds[j] = ids[i];
        newDeleted[j] = deleted[i];
        j++;
      }
    }
    return new SubjectVersions(newVersions, newIds, newDeleted);
  }
}
