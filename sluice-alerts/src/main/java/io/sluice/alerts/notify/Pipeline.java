package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.config.TimeInterval;
import io.sluice.alerts.dispatch.Notification;
import io.sluice.alerts.dispatch.Notifier;
import io.sluice.alerts.nflog.NotificationLog;
import io.sluice.alerts.types.Alert;
import io.sluice.alerts.types.Muter;
import io.sluice.client.HttpClients;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Alertmanager's notification pipeline for one flush: mute (inhibition, then silences), time intervals, and per
 * integration of the receiver: dedup against the notification log, send with retries, log what was sent.
 */
public final class Pipeline implements Notifier {
  private static final Logger log = LoggerFactory.getLogger(Pipeline.class);

  /** Waits between retries; tests pass one that does not sleep. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration d) throws InterruptedException;
  }

  private final Config config;
  private final List<Muter> muters;
  private final NotificationLog nflog;
  private final Clock clock;
  private final Sleeper sleeper;
  private final NotifyMetrics metrics;
  private final String externalUrl;
  private final int maxAttempts;
  private final Map<String, List<Sender>> senders = new HashMap<>();

  public Pipeline(Config config, List<Muter> muters, NotificationLog nflog, Clock clock, Sleeper sleeper,
      NotifyMetrics metrics, String externalUrl, int maxAttempts, HttpClients http) {
    this.config = config;
    this.muters = muters;
    this.nflog = nflog;
    this.clock = clock;
    this.sleeper = sleeper;
    this.metrics = metrics;
    this.externalUrl = externalUrl;
    this.maxAttempts = maxAttempts;
    Duration timeout = Duration.ofSeconds(10);
    Templates templates = Templates.load(config.templateTexts());
    for (Config.Receiver r : config.receivers()) {
      List<Sender> list = new ArrayList<>();
      for (Config.Integration i : r.integrations()) {
        list.add(Sender.of(i, http::of, timeout, templates));
      }
      senders.put(r.name(), list);
    }
  }

  /**
   * What makes a configuration unusable beyond its YAML, as Alertmanager finds when it builds its receivers: template
   * files that do not parse, {@code tls_config} files that cannot be read, an Opsgenie responder type that is a
   * template and does not parse.
   */
  public static void check(Config config) throws io.sluice.alerts.config.ConfigException {
    try {
      Templates.load(config.templateTexts());
    } catch (IllegalArgumentException e) {
      throw new io.sluice.alerts.config.ConfigException(List.of("failed to parse templates: " + e.getMessage()));
    }
    List<String> errors = new ArrayList<>();
    for (Config.Receiver r : config.receivers()) {
      for (Config.Integration i : r.integrations()) {
        if (i instanceof Config.HttpIntegration h && h.http().tls() != null) {
          try {
            h.http().clientBuilder();
          } catch (IllegalArgumentException e) {
            errors.add("receiver \"" + r.name() + "\": " + i.kind() + ": " + e.getMessage());
          }
        }
        if (i instanceof Config.OpsGenie o) {
          // Alertmanager parses a templated responder type when it loads the file.
          for (Config.Responder responder : o.responders()) {
            if (responder.type().contains("{{")) {
              try {
                Templates.parse(responder.type());
              } catch (IllegalArgumentException e) {
                errors.add("receiver \"" + r.name() + "\": opsgenie responder type is not a valid template: "
                    + e.getMessage());
              }
            }
          }
        }
      }
    }
    if (!errors.isEmpty()) {
      throw new io.sluice.alerts.config.ConfigException(errors);
    }
  }

  @Override
  public boolean notify(Notification n) {
    Instant now = n.now();
    List<Alert> alerts = new ArrayList<>();
    for (Alert a : n.alerts()) {
      if (!muted(a)) {
        alerts.add(a);
      }
    }
    if (alerts.isEmpty()) {
      return true;
    }
    Config.Route rc = n.route().conf();
    if (!rc.muteTimeIntervals().isEmpty() && inAny(rc.muteTimeIntervals(), now)) {
      log.debug("group {} muted by a mute time interval", n.groupKey());
      return true;
    }
    if (!rc.activeTimeIntervals().isEmpty() && !inAny(rc.activeTimeIntervals(), now)) {
      log.debug("group {} outside its active time intervals", n.groupKey());
      return true;
    }
    boolean ok = true;
    List<Sender> list = senders.getOrDefault(n.receiver(), List.of());
    Map<String, Integer> index = new HashMap<>();
    for (Sender s : list) {
      int idx = index.merge(s.conf().kind(), 1, Integer::sum) - 1;
      ok &= integration(n, alerts, s, idx, now);
    }
    return ok;
  }

  private boolean muted(Alert a) {
    // Inhibition first, then silences, as Alertmanager orders its mute stages; both are evaluated so the
    // API reports every reason.
    boolean muted = false;
    for (Muter m : muters) {
      muted |= m.mutes(a.labels());
    }
    return muted;
  }

  private boolean inAny(List<String> names, Instant now) {
    for (String name : names) {
      if (TimeInterval.anyContains(config.timeIntervals().getOrDefault(name, List.of()), now)) {
        return true;
      }
    }
    return false;
  }

  private boolean integration(Notification n, List<Alert> alerts, Sender s, int idx, Instant now) {
    Set<Long> firing = new HashSet<>();
    Set<Long> resolved = new HashSet<>();
    for (Alert a : alerts) {
      (a.resolvedAt(now) ? resolved : firing).add(a.fingerprint());
    }
    String key = NotificationLog.key(n.groupKey(), n.receiver(), s.conf().kind(), idx);
    Optional<NotificationLog.Entry> entry = nflog.query(key);
    if (!needsUpdate(entry.orElse(null), firing, resolved, s.conf().sendResolved(), n.route().conf().repeatInterval(),
        clock.instant())) {
      return true;
    }
    List<Alert> toSend = alerts;
    if (!s.conf().sendResolved()) {
      toSend = alerts.stream().filter(a -> !a.resolvedAt(now)).toList();
    }
    if (!toSend.isEmpty()) {
      TemplateData data = TemplateData.of(n.receiver(), n.groupKey(), n.groupLabels(), toSend, externalUrl, now);
      if (!sendWithRetry(s, data, toSend, n.route().conf().groupInterval())) {
        return false;
      }
    }
    nflog.log(key, firing, resolved);
    return true;
  }

  /** Alertmanager's DedupStage decision. */
  static boolean needsUpdate(NotificationLog.Entry entry, Set<Long> firing, Set<Long> resolved,
      boolean sendResolved, Duration repeat, Instant now) {
    if (entry == null) {
      return !firing.isEmpty();
    }
    if (!entry.isFiringSubset(firing)) {
      return true;
    }
    if (firing.isEmpty()) {
      // All resolved: notify (even without send_resolved) so the log forgets the firing alerts, unless the
      // receiver never heard of them.
      return !entry.firing().isEmpty();
    }
    if (sendResolved && !entry.isResolvedSubset(resolved)) {
      return true;
    }
    return entry.timestamp().isBefore(now.minus(repeat));
  }

  private boolean sendWithRetry(Sender s, TemplateData data, List<Alert> alerts, Duration budget) {
    String kind = s.conf().kind();
    metrics.inc("alertmanager_notifications_total", "integration", kind);
    Duration backoff = Duration.ofMillis(500);
    Duration spent = Duration.ZERO;
    for (int attempt = 1; ; attempt++) {
      metrics.inc("alertmanager_notification_requests_total", "integration", kind);
      try {
        s.send(data, alerts);
        return true;
      } catch (SendException e) {
        metrics.inc("alertmanager_notification_requests_failed_total", "integration", kind);
        boolean again = e.retryable() && attempt < maxAttempts && spent.plus(backoff).compareTo(budget) < 0;
        log.warn("notify {} for {} failed (attempt {}): {}{}", data.receiver(), kind, attempt, e.getMessage(),
            again ? "; retrying" : "");
        if (!again) {
          metrics.inc("alertmanager_notifications_failed_total", "integration", kind);
          return false;
        }
      } catch (RuntimeException e) {
        metrics.inc("alertmanager_notification_requests_failed_total", "integration", kind);
        metrics.inc("alertmanager_notifications_failed_total", "integration", kind);
        log.warn("notify {} for {} failed: {}", data.receiver(), kind, e.getClass().getSimpleName());
        return false;
      }
      try {
        sleeper.sleep(backoff);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        return false;
      }
      spent = spent.plus(backoff);
      backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(30)) > 0 ? Duration.ofSeconds(30)
          : backoff.multipliedBy(2);
    }
  }
}
