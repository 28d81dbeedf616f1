package io.sluice.alerts.dispatch;

/** The stage after the dispatcher: true when the notification was handled (sent, deduplicated or muted). */
@FunctionalInterface
public interface Notifier {
  boolean notify(Notification notification);
}
