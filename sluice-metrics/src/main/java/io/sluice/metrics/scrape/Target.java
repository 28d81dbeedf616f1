package io.sluice.metrics.scrape;

import io.sluice.client.ClientOptions;
import io.sluice.client.HttpConfig;
import io.sluice.metrics.model.Labels;
import java.time.Duration;
import java.time.Instant;

/** One scrape target and the outcome of its last scrape, as {@code /api/v1/targets} reports it. */
public final class Target {
  public enum Health {
    UNKNOWN("unknown"), UP("up"), DOWN("down");

    private final String apiName;

    Health(String apiName) {
      this.apiName = apiName;
    }

    public String apiName() {
      return apiName;
    }
  }

  private final String job;
  private final String url;
  private final Labels labels;
  private final Labels discoveredLabels;
  private final Duration interval;
  private final Duration timeout;
  private final ClientOptions http;
  private volatile Health health = Health.UNKNOWN;
  private volatile String lastError = "";
  private volatile Instant lastScrape;
  private volatile double lastDurationSeconds;

  Target(String job, String url, Labels labels, Labels discoveredLabels, Duration interval, Duration timeout) {
    this(job, url, labels, discoveredLabels, interval, timeout, HttpConfig.none());
  }

  Target(String job, String url, Labels labels, Labels discoveredLabels, Duration interval, Duration timeout,
      ClientOptions http) {
    this.http = http;
    this.job = job;
    this.url = url;
    this.labels = labels;
    this.discoveredLabels = discoveredLabels;
    this.interval = interval;
    this.timeout = timeout;
  }

  void report(Health h, String error, Instant at, double durationSeconds) {
    this.health = h;
    this.lastError = error == null ? "" : error;
    this.lastScrape = at;
    this.lastDurationSeconds = durationSeconds;
  }

  public String job() {
    return job;
  }

  public String url() {
    return url;
  }

  /** The target labels added to every scraped sample: job, instance and static labels. */
  public Labels labels() {
    return labels;
  }

  public Labels discoveredLabels() {
    return discoveredLabels;
  }

  public Duration interval() {
    return interval;
  }

  public Duration timeout() {
    return timeout;
  }

  ClientOptions http() {
    return http;
  }

  public Health health() {
    return health;
  }

  public String lastError() {
    return lastError;
  }

  /** Null before the first scrape. */
  public Instant lastScrape() {
    return lastScrape;
  }

  public double lastDurationSeconds() {
    return lastDurationSeconds;
  }
}
