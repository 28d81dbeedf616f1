package io.sluice.app.hog;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source connector whose task keeps {@code threads} threads busy computing for {@code seconds}, then idles: the
 * tests' stand-in for a connector stuck in a loop, which takes every core the data plane can get.
 */
public class CpuHogConnector extends SourceConnector {
  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return CpuHogTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef()
        .define("threads", ConfigDef.Type.INT, ConfigDef.Importance.HIGH, "busy threads")
        .define("seconds", ConfigDef.Type.INT, ConfigDef.Importance.HIGH, "how long they stay busy");
  }

  @Override
  public String version() {
    return "1";
  }
}
