package io.sluice.app.hog;

import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceConnector;

/** A source connector of one task, which gets the connector's own settings: what each test hog needs of Connect. */
public abstract class OneTaskSource extends SourceConnector {
  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = Map.copyOf(props);
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public String version() {
    return "1";
  }
}
