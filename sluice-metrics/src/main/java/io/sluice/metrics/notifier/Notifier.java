package io.sluice.metrics.notifier;

import io.sluice.client.ClientOptions;
import io.sluice.client.HttpConfig;
import io.sluice.client.HttpClients;

import io.sluice.http.Json;
import io.sluice.metrics.model.Labels;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends alerts to alert routers (Alertmanager API v2, {@code POST /api/v2/alerts}) as Prometheus's notifier does:
 * a bounded queue (the oldest alerts are dropped when it overflows), batches of up to 64 alerts, each batch posted to
 * every configured router at once, and counted as sent when at least one accepted it. Unlike Prometheus, a failed
 * post is retried a few times with a growing pause before the batch counts as dropped (Prometheus relies on the
 * next re-send alone).
 */
public final class Notifier implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Notifier.class);
  private static final DateTimeFormatter RFC3339_MILLIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneOffset.UTC);

  /** An alert as the router receives it. */
  public record Alert(Labels labels, Map<String, String> annotations, Instant startsAt, Instant endsAt,
      String generatorUrl) {}

  /** Counters in the spirit of {@code prometheus_notifications_*}. */
  public record Stats(long sent, long errors, long dropped, int queueLength, int alertmanagers) {}

  private final int capacity;
  private final int batchSize;
  private final Duration timeout;
  private final int retries;
  private final Duration retryBackoff;
  private final ArrayDeque<Alert> queue = new ArrayDeque<>();
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final Thread sender;
  private volatile List<String> endpoints;
  /** How each endpoint is reached (credentials, TLS), by endpoint URL; absent means plain. */
  private volatile Map<String, ClientOptions> http = Map.of();
  private final HttpClients clients;
  private volatile Labels externalLabels;
  private volatile boolean closed;

  private Notifier(Builder b) {
    this.capacity = b.capacity;
    this.batchSize = b.batchSize;
    this.timeout = b.timeout;
    this.retries = b.retries;
    this.retryBackoff = b.retryBackoff;
    this.endpoints = endpoints(b.alertmanagers);
    this.externalLabels = b.externalLabels;
    this.clients = new HttpClients(b.timeout);
    this.sender = new Thread(this::run, "sluice-metrics-notifier");
    sender.setDaemon(true);
    sender.start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Settings; the defaults are Prometheus's (queue 10,000, batches of 64, 10 s timeout) plus 2 retries. */
  public static final class Builder {
    private List<String> alertmanagers = List.of();
    private Labels externalLabels = Labels.EMPTY;
    private int capacity = 10_000;
    private int batchSize = 64;
    private Duration timeout = Duration.ofSeconds(10);
    private int retries = 2;
    private Duration retryBackoff = Duration.ofMillis(500);

    private Builder() {}

    /** Base URLs of the routers, e.g. {@code http://127.0.0.1:9093}; {@code /api/v2/alerts} is appended. */
    public Builder alertmanagers(List<String> baseUrls) {
      this.alertmanagers = List.copyOf(baseUrls);
      return this;
    }

    public Builder externalLabels(Labels labels) {
      this.externalLabels = labels;
      return this;
    }

    public Builder queueCapacity(int capacity) {
      this.capacity = capacity;
      return this;
    }

    public Builder batchSize(int size) {
      this.batchSize = size;
      return this;
    }

    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    public Builder retries(int retries, Duration backoff) {
      this.retries = retries;
      this.retryBackoff = backoff;
      return this;
    }

    public Notifier build() {
      return new Notifier(this);
    }
  }

  private static List<String> endpoints(List<String> baseUrls) {
    List<String> out = new ArrayList<>();
    for (String u : baseUrls) {
      out.add(u.replaceAll("/+$", "") + "/api/v2/alerts");
    }
    return List.copyOf(out);
  }

  /** Points the notifier at other routers (a reloaded configuration); queued alerts go to the new ones. */
  public void apply(List<String> alertmanagerBaseUrls, Labels externalLabels) {
    apply(alertmanagerBaseUrls, Map.of(), externalLabels);
  }

  /** As {@link #apply(List, Labels)}, each router reached as its {@code http} config says (by base URL). */
  public void apply(List<String> alertmanagerBaseUrls, Map<String, ClientOptions> httpByBaseUrl,
      Labels externalLabels) {
    Map<String, ClientOptions> byEndpoint = new HashMap<>();
    httpByBaseUrl.forEach((base, h) -> byEndpoint.put(endpoints(List.of(base)).get(0), h));
    this.http = Map.copyOf(byEndpoint);
    this.endpoints = endpoints(alertmanagerBaseUrls);
    this.externalLabels = externalLabels;
  }

  public List<String> endpoints() {
    return endpoints;
  }

  /** Queues alerts, adding the external labels they do not carry; never blocks. */
  public void send(List<Alert> alerts) {
    Labels ext = externalLabels;
    synchronized (queue) {
      for (Alert a : alerts) {
        Labels l = a.labels();
        if (!ext.isEmpty()) {
          Labels.Builder b = l.toBuilder();
          ext.forEach((k, v) -> {
            if (!a.labels().has(k)) {
              b.set(k, v);
            }
          });
          l = b.build();
        }
        queue.addLast(new Alert(l, a.annotations(), a.startsAt(), a.endsAt(), a.generatorUrl()));
      }
      int over = queue.size() - capacity;
      for (int i = 0; i < over; i++) {
        queue.removeFirst();
        dropped.incrementAndGet();
      }
      if (over > 0) {
        log.warn("alert queue full, dropped {} old alerts", over);
      }
      queue.notifyAll();
    }
  }

  public Stats stats() {
    synchronized (queue) {
      return new Stats(sent.get(), errors.get(), dropped.get(), queue.size(), endpoints.size());
    }
  }

  private void run() {
    while (true) {
      List<Alert> batch = new ArrayList<>();
      synchronized (queue) {
        while (queue.isEmpty() && !closed) {
          try {
            queue.wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        if (queue.isEmpty()) {
          return;
        }
        while (!queue.isEmpty() && batch.size() < batchSize) {
          batch.add(queue.removeFirst());
        }
      }
      if (!sendAll(batch)) {
        dropped.addAndGet(batch.size());
      }
    }
  }

  private boolean sendAll(List<Alert> batch) {
    List<String> targets = endpoints;
    if (targets.isEmpty()) {
      return false;
    }
    byte[] body = Json.write(toJson(batch));
    List<CompletableFuture<Boolean>> posts = new ArrayList<>();
    for (String url : targets) {
      posts.add(CompletableFuture.supplyAsync(() -> postWithRetries(url, body, batch.size())));
    }
    boolean any = false;
    for (CompletableFuture<Boolean> f : posts) {
      any |= f.join();
    }
    return any;
  }

  private boolean postWithRetries(String url, byte[] body, int count) {
    for (int attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) {
        try {
          Thread.sleep(retryBackoff.toMillis() << (attempt - 1));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      try {
        ClientOptions h = http.getOrDefault(url, HttpConfig.none());
        HttpClient c = clients.of(h);
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url)).timeout(timeout)
            .header("Content-Type", "application/json").header("User-Agent", "Sluice-metrics")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        h.apply(req);
        HttpResponse<String> r = c.send(req.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 == 2) {
          sent.addAndGet(count);
          return true;
        }
        errors.addAndGet(count);
        log.warn("alert router {} answered {}: {}", url, r.statusCode(), r.body());
        if (r.statusCode() / 100 == 4) {
          return false; // the router refuses these alerts; sending them again changes nothing
        }
      } catch (IOException e) {
        errors.addAndGet(count);
        log.warn("sending {} alerts to {} failed: {}", count, url, e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  /** Alertmanager's {@code PostableAlerts}. */
  static List<Map<String, Object>> toJson(List<Alert> alerts) {
    List<Map<String, Object>> out = new ArrayList<>(alerts.size());
    for (Alert a : alerts) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("labels", a.labels().toMap());
      m.put("annotations", a.annotations());
      if (a.startsAt() != null) {
        m.put("startsAt", RFC3339_MILLIS.format(a.startsAt()));
      }
      if (a.endsAt() != null) {
        m.put("endsAt", RFC3339_MILLIS.format(a.endsAt()));
      }
      m.put("generatorURL", a.generatorUrl());
      out.add(m);
    }
    return out;
  }

  /** Stops after trying to deliver what is queued, for at most 3 s (or the timeout, if shorter). */
  @Override
  public void close() {
    synchronized (queue) {
      closed = true;
      queue.notifyAll();
    }
    try {
      sender.join(Math.min(timeout.toMillis(), 3_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sender.interrupt();
  }
}
