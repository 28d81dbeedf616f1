package io.sluice.alerts.types;

import java.util.Map;

/** Decides whether an alert's notification is muted (by an inhibition rule or a silence). */
public interface Muter {
  boolean mutes(Map<String, String> labels);
}
