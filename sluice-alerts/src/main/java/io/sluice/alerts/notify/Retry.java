package io.sluice.alerts.notify;

/**
 * Which failed answers of a service a later attempt may change, as Alertmanager's notifier for that service decides
 * (its {@code notify.Retrier}): a 2xx is success, anything else a failure, retried only if listed here. A request that
 * gets no answer at all is always retried.
 */
enum Retry {
  /** 5xx: Alertmanager's default, for services that document nothing else (Discord, Teams, Webex, ...). */
  SERVER_ERRORS,
  /** 5xx and 429: services that document rate limiting and ask to retry (PagerDuty, Opsgenie). */
  SERVER_ERRORS_AND_RATE_LIMITS;

  boolean retries(int status) {
    return status / 100 == 5 || (this == SERVER_ERRORS_AND_RATE_LIMITS && status == 429);
  }
}
