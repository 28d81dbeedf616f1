package io.sluice.app.hog;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;

/**
 * A source connector whose task keeps {@code threads} threads busy computing for {@code seconds}, then idles: the
 * tests' stand-in for a connector stuck in a loop, which takes every core the data plane can get.
 */
public class CpuHogConnector extends OneTaskSource {
  @Override
  public Class<? extends Task> taskClass() {
    return CpuHogTask.class;
  }

  @Override
  public ConfigDef config() {
    return new ConfigDef()
        .define("threads", ConfigDef.Type.INT, ConfigDef.Importance.HIGH, "busy threads")
        .define("seconds", ConfigDef.Type.INT, ConfigDef.Importance.HIGH, "how long they stay busy");
  }
}
