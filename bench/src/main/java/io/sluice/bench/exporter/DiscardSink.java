package io.sluice.bench.exporter;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/** A sink that accepts and drops every record: Connect's own sink metrics and offset commits still run. */
public final class DiscardSink extends SinkConnector {
  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return Discard.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return java.util.Collections.nCopies(maxTasks, props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  @Override
  public String version() {
    return "1";
  }

  /** Drops records. */
  public static final class Discard extends SinkTask {
    @Override
    public String version() {
      return "1";
    }

    @Override
    public void start(Map<String, String> props) {}

    @Override
    public void put(Collection<SinkRecord> records) {}

    @Override
    public void stop() {}
  }
}
