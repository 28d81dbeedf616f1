package io.sluice.console;

import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import io.sluice.ops.dlq.DeadLetterQueue;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.client.ConnectorSilencer;
import io.sluice.http.HttpServer;
import io.sluice.http.ServerOptions;
import io.sluice.client.HttpConfig;
import io.sluice.http.web.WebConfig;
import io.sluice.topics.KafkaCluster;
import io.sluice.console.auth.Accounts;
import io.sluice.console.auth.LoginThrottle;
import io.sluice.console.auth.Sessions;
import io.sluice.console.web.Site;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * The operator's console: a login of its own, an overview of every connector and a page of
 * eight panels per pipeline, drawn from the metrics server's and the alert router's HTTP APIs only, and a page per
 * connector to act on it through Kafka Connect's REST API, each action as the user's role allows; the topics with a
 * message browser, the consumer groups and their lag, and the registry's subjects, from Kafka's Admin API and the
 * registry's REST API.
 *
 * <pre>{@code
 * ConsoleServer console = ConsoleServer.builder().port(3000).dataDir(Path.of("data/ui"))
 *     .metricsUrl("http://127.0.0.1:9090").alertsUrl("http://127.0.0.1:9093").start();
 * }</pre>
 */
public final class ConsoleServer implements AutoCloseable {
  private final HttpServer server;
  private final Site site;

  private ConsoleServer(HttpServer server, Site site) {
    this.server = server;
    this.site = site;
  }

  public static Builder builder() {
    return new Builder();
  }

  public String url() {
    return server.url();
  }

  @Override
  public void close() {
    server.close();
    site.close();
  }

  /**
   * Configures and starts the console, on 127.0.0.1:3000 unless told otherwise, reading request bodies up to
   * 64 KiB. Of a web configuration it takes TLS and response headers; its users are not asked for, the console's
   * own login is what guards it.
   */
  public static final class Builder extends ServerOptions.Settings<Builder> {
    private Path dataDir = Path.of("data", "ui");
    private String metricsUrl = "http://127.0.0.1:9090";
    private String alertsUrl = "http://127.0.0.1:9093";
    private ClientOptions metricsClient = HttpConfig.none();
    private ClientOptions alertsClient = HttpConfig.none();
    private Clock clock = Clock.systemUTC();
    private String connectUrl = "http://127.0.0.1:8083";
    private ClientOptions connectClient = ClientOptions.defaults();
    private String silencesUrl;
    private ClientOptions silencesClient = ClientOptions.defaults();
    private Path auditDir = Path.of("data");
    private KafkaCluster kafka;
    private String registryUrl;
    private ClientOptions registryClient = ClientOptions.defaults();

    private Builder() {
      super(ServerOptions.loopback(3000, 64 << 10));
    }

    /** Where {@code users.json} lives. */
    public Builder dataDir(Path dataDir) {
      this.dataDir = dataDir;
      return this;
    }

    /** The Prometheus HTTP API to draw from (Sluice's metrics server or a real Prometheus). */
    public Builder metricsUrl(String metricsUrl) {
      this.metricsUrl = metricsUrl;
      return this;
    }

    /** The Alertmanager API to read alerts from (Sluice's router or a real Alertmanager). */
    public Builder alertsUrl(String alertsUrl) {
      this.alertsUrl = alertsUrl;
      return this;
    }

    /**
     * Credentials and TLS for reaching the metrics API and the alerts API, each its own (a Prometheus and an
     * Alertmanager elsewhere rarely share them).
     */
    public Builder upstream(ClientOptions metrics, ClientOptions alerts) {
      this.metricsClient = metrics;
      this.alertsClient = alerts;
      return this;
    }

    /** Kafka Connect's REST API, which the connector pages read and act on, and how to reach it. */
    public Builder connect(String url, ClientOptions options) {
      this.connectUrl = url;
      this.connectClient = options;
      return this;
    }

    /**
     * The Alertmanager API a pause may silence a connector's alerts on (the router the alerts come from), and how to
     * reach it; without one the console offers no silence.
     */
    public Builder silences(String url, ClientOptions options) {
      this.silencesUrl = url;
      this.silencesClient = options;
      return this;
    }

    /** The data directory whose {@code audit.log} gets a line per action, beside the CLI's (default {@code data}). */
    public Builder auditDir(Path auditDir) {
      this.auditDir = auditDir;
      return this;
    }

    /** The Kafka cluster whose topics, messages and consumer groups the console shows; without it, none. */
    public Builder kafka(KafkaCluster kafka) {
      this.kafka = kafka;
      return this;
    }

    /** The schema registry the console decodes messages with and whose subjects it shows, and how to reach it. */
    public Builder registry(String url, ClientOptions options) {
      this.registryUrl = url;
      this.registryClient = options;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    public ConsoleServer start() {
      WebConfig web = serverOptions().web();
      // Roles come from the web configuration (sluice_roles, or its roles file) by the console user's name.
      // The DLQ pages read and replay as sluice dlq does: the cluster, the registry to decode with, Connect to find
      // the sinks' dead-letter topics, the replay's offsets backed up under the data directory's backups/dlq.
      DeadLetterQueue dlq = kafka == null ? null : DeadLetterQueue.builder().cluster(kafka).registryUrl(registryUrl)
          .clientOptions(connectClient).connectUrl(connectUrl).backupDir(auditDir.resolve("backups").resolve("dlq"))
          .clientProperty("request.timeout.ms", 30_000).clientProperty("default.api.timeout.ms", 60_000).build();
      Site.Actions actions = new Site.Actions(new ConnectRestClient(connectUrl, connectClient),
          silencesUrl == null ? null : new ConnectorSilencer(silencesUrl, silencesClient), web::roleOf, auditDir,
          new Site.Data(kafka, registryUrl, registryClient), dlq,
          silencesUrl == null ? null : new HttpTransport(silencesUrl, silencesClient, "the alert router"));
      Site site = new Site(Accounts.in(dataDir), new Sessions(clock), new LoginThrottle(clock), metricsUrl,
          metricsClient, alertsUrl, alertsClient, web.tls() != null, actions);
      WebConfig tlsOnly = new WebConfig(web.tls(), Map.of(), Map.of(), web.headers(), web.source(), null);
      try {
        HttpServer server = site.register(HttpServer.builder("console", serverOptions().withWeb(tlsOnly))).start();
        return new ConsoleServer(server, site);
      } catch (RuntimeException e) {
        site.close();
        throw e;
      }
    }
  }
}
