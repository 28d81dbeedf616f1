package io.sluice.connect;

import io.sluice.http.HeaderLimit;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
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
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Starts a distributed Connect worker the way {@code ConnectDistributed} does, with what an embedded worker needs
 * beyond it: its REST server reads headers into a larger buffer, so that Sluice's filter answers an oversized request
 * 431 after reading it (Jetty's own refusal closes with input unread, which over TLS resets the connection before the
 * client sees the answer; Connect has no setting for it); its TLS listeners are handed out, so that a renewed
 * certificate can be loaded without a restart; and a worker that fails to start throws instead of ending the JVM that
 * also runs the broker and the other components.
 */
final class DistributedWorker extends ConnectDistributed {
  private final List<SslContextFactory.Server> tls = new ArrayList<>();

  /** The TLS settings of the REST server's listeners, once started (none when it serves plain HTTP). */
  List<SslContextFactory.Server> tls() {
    return List.copyOf(tls);
  }

  /**
   * {@code beforeKafka} runs once what needs no broker is done (the plugin scan, the configuration, the REST server's
   * port), before the first Kafka client is made.
   */
  Connect<DistributedHerder> start(Map<String, String> workerProps, Runnable beforeKafka) {
    Plugins plugins = new Plugins(workerProps);
    plugins.compareAndSwapWithDelegatingLoader();
    DistributedConfig config = createConfig(workerProps);
    RestClient restClient = new RestClient(config);
    ConnectRestServer rest = new ConnectRestServer(config.rebalanceTimeout(), restClient, config.originals());
    tune(rest);
    rest.initializeServer();
    try {
      beforeKafka.run();
    } catch (RuntimeException e) {
      // A worker refused before its herder exists still holds its REST port.
      rest.stop();
      throw e;
    }
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
  private void tune(ConnectRestServer rest) {
    for (Connector c : rest.createConnector("http://127.0.0.1:0").getServer().getConnectors()) {
      HttpConnectionFactory http = c.getConnectionFactory(HttpConnectionFactory.class);
      if (http != null) {
        http.getHttpConfiguration().setRequestHeaderSize(HeaderLimit.BUFFER);
      }
      SslConnectionFactory ssl = c.getConnectionFactory(SslConnectionFactory.class);
      if (ssl != null) {
        tls.add(ssl.getSslContextFactory());
      }
    }
  }
}
