package io.sluice.bench.exporter;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/** A source that writes one small record per task and second, so that the exporter has live task metrics to read. */
public final class TickSource extends SourceConnector {
  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return Ticks.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return java.util.Collections.nCopies(maxTasks, props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef().define("topic", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "target topic");
  }

  @Override
  public String version() {
    return "1";
  }

  /** One record a second. */
  public static final class Ticks extends SourceTask {
    private String topic;
    private long n;

    @Override
    public String version() {
      return "1";
    }

    @Override
    public void start(Map<String, String> props) {
      topic = props.get("topic");
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
      Thread.sleep(1000);
      n++;
      return List.of(new SourceRecord(Map.of("t", topic), Map.of("n", n), topic, null, Schema.STRING_SCHEMA,
          "tick-" + n));
    }

    @Override
    public void stop() {}
  }
}
