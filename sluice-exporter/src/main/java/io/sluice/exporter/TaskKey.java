package io.sluice.exporter;

/** One task of one connector, as Connect's metric tags name it ({@code task} is its number). */
record TaskKey(String connector, String task) {

  /** {@code <connector>/<task>}: the key of the task's record in the counts topic. */
  String topicKey() {
    return connector + "/" + task;
  }

  /** The task a {@link #topicKey()} names, or null when the key is not one. */
  static TaskKey ofTopicKey(String key) {
    int slash = key == null ? -1 : key.lastIndexOf('/');
    if (slash <= 0 || slash == key.length() - 1) {
      return null;
    }
    return new TaskKey(key.substring(0, slash), key.substring(slash + 1));
  }
}
