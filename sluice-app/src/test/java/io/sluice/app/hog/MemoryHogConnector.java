package io.sluice.app.hog;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;

/**
 * A source connector that exhausts its worker's heap once: the first time its task starts it leaves a mark in the file
 * {@code marker.file} and then holds ever more memory until the JVM gives up; started again (the mark is there), it
 * idles. The tests' stand-in for a connector gone wrong, loaded from a plugin folder of its own as users add theirs.
 */
public class MemoryHogConnector extends OneTaskSource {
  @Override
  public Class<? extends Task> taskClass() {
    return MemoryHogTask.class;
  }

  @Override
  public ConfigDef config() {
    return new ConfigDef().define("marker.file", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH,
        "file marking that the heap was exhausted once");
  }
}
