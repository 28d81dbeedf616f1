package io.sluice.alerts.dispatch;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.labels.LabelMap;
import io.sluice.alerts.labels.Matcher;
import io.sluice.alerts.labels.Matchers;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A node of the route tree. {@link #key()} is Alertmanager's route key (the parents' keys and this node's sorted
 * matchers) so group keys, and with them the notification log and PagerDuty dedup keys, are the same as
 * Alertmanager's for the same file.
 */
public final class Route {
  private final Config.Route conf;
  private final String key;
  private final List<Route> children;
  /** group_by's names, sorted and distinct, as group label sets hold them. */
  private final String[] groupBy;

  private Route(Config.Route conf, Route parent) {
    this.conf = conf;
    List<Matcher> sorted = new ArrayList<>(conf.matchers());
    sorted.sort(Comparator.comparing(Matcher::name).thenComparing(Matcher::value)
        .thenComparing(m -> m.type().ordinal()));
    StringBuilder b = new StringBuilder();
    if (parent != null) {
      b.append(parent.key).append('/');
    }
    b.append('{');
    for (int i = 0; i < sorted.size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append(sorted.get(i));
    }
    this.key = b.append('}').toString();
    List<Route> kids = new ArrayList<>();
    for (Config.Route c : conf.routes()) {
      kids.add(new Route(c, this));
    }
    this.children = List.copyOf(kids);
    this.groupBy = new TreeSet<>(conf.groupBy()).toArray(new String[0]);
  }

  public static Route tree(Config.Route root) {
    return new Route(root, null);
  }

  public Config.Route conf() {
    return conf;
  }

  public String key() {
    return key;
  }

  public String receiver() {
    return conf.receiver();
  }

  /** Alertmanager's matching: the deepest matching routes, siblings tried in order until one without continue. */
  public List<Route> match(Map<String, String> labels) {
    if (!Matchers.matchesAll(conf.matchers(), labels)) {
      return List.of();
    }
    List<Route> all = new ArrayList<>(1);
    for (Route child : children) {
      List<Route> m = child.match(labels);
      all.addAll(m);
      if (!m.isEmpty() && !child.conf.continueMatching()) {
        break;
      }
    }
    if (all.isEmpty()) {
      all.add(this);
    }
    return all;
  }

  /** The labels an alert is grouped by on this route: group_by's labels that the alert has with a value. */
  public LabelMap groupLabels(Map<String, String> labels) {
    if (conf.groupByAll()) {
      return LabelMap.of(labels);
    }
    String[] values = new String[groupBy.length];
    int present = 0;
    for (int i = 0; i < groupBy.length; i++) {
      String v = labels.get(groupBy[i]);
      if (v != null && !v.isEmpty()) {
        values[i] = v;
        present++;
      }
    }
    if (present == groupBy.length) {
      return LabelMap.ofSorted(groupBy, values);
    }
    String[] someNames = new String[present];
    String[] someValues = new String[present];
    for (int i = 0, j = 0; i < groupBy.length; i++) {
      if (values[i] != null) {
        someNames[j] = groupBy[i];
        someValues[j++] = values[i];
      }
    }
    return LabelMap.ofSorted(someNames, someValues);
  }
}
