package io.sluice.connect;

import io.sluice.http.HeaderLimit;
import java.net.URI;
import java.util.Map;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigOverridePolicy;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.runtime.distributed.DistributedConfig;
import org.apache.kafka.connect.runtime.distributed.DistributedHerder;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.connect.runtime.rest.ConnectRestServer;
import org.apache.kafka.connect.runtime.rest.RestClient;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConnectionFactory;

/**
 * Starts a distributed Connect worker the way {@code ConnectDistributed} does, with two differences an embedded
 * worker needs: its REST server reads headers into a larger buffer, so that Sluice's filter answers an oversized
 * request 431 after reading it (Jetty's own refusal closes with input unread, which over TLS resets the connection
 * before the client sees the answer; Connect has no setting for it); and a worker that fails to start throws instead
 * of ending the JVM that also runs the broker and the other components.
 */
final class DistributedWorker extends ConnectDistributed {

  Connect<DistributedHerder> start(Map<String, String> workerProps) {
    Plugins plugins = new Plugins(workerProps);
    plugins.compareAndSwapWithDelegatingLoader();
    DistributedConfig config = createConfig(workerProps);
    RestClient restClient = new RestClient(config);
    ConnectRestServer rest = new ConnectRestServer(config.rebalanceTimeout(), restClient, config.originals());
    enlargeHeaderBuffer(rest);
    rest.initializeServer();
    URI advertised = rest.advertisedUrl();
    ConnectorClientConfigOverridePolicy policy = plugins.newPlugin(
        config.getString(WorkerConfig.CONNECTOR_CLIENT_POLICY_CLASS_CONFIG), config,
        ConnectorClientConfigOverridePolicy.class);
    DistributedHerder herder = createHerder(config, advertised.getHost() + ":" + advertised.getPort(), plugins,
        policy, rest, restClient);
    Connect<DistributedHerder> connect = new Connect<>(herder, rest);
    try {
      connect.start();
    } catch (RuntimeException e) {
      connect.stop();
      throw e;
    }
    return connect;
  }

  /**
   * Connect's REST server keeps its Jetty server to itself; a connector it makes (and nobody adds) knows the server,
   * whose real connectors are all made by now and not yet started.
   */
  private static void enlargeHeaderBuffer(ConnectRestServer rest) {
    for (Connector c : rest.createConnector("http://127.0.0.1:0").getServer().getConnectors()) {
      HttpConnectionFactory http = c.getConnectionFactory(HttpConnectionFactory.class);
      if (http != null) {
        http.getHttpConfiguration().setRequestHeaderSize(HeaderLimit.BUFFER);
      }
    }
  }
}
