package io.sluice.alerts.notify;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** The router's own counters, named as Alertmanager names them, rendered in Prometheus text format. */
public final class NotifyMetrics {
  private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();

  public void inc(String name, String labelName, String labelValue) {
    add(name, labelName, labelValue, 1);
  }

  public void add(String name, String labelName, String labelValue, long n) {
    counters.computeIfAbsent(name + "{" + labelName + "=\"" + labelValue + "\"}", k -> new LongAdder()).add(n);
  }

  public long get(String name, String labelName, String labelValue) {
    LongAdder a = counters.get(name + "{" + labelName + "=\"" + labelValue + "\"}");
    return a == null ? 0 : a.sum();
  }

  public String exposition() {
    StringBuilder b = new StringBuilder();
    String last = "";
    for (Map.Entry<String, LongAdder> e : new TreeMap<>(counters).entrySet()) {
      String name = e.getKey().substring(0, e.getKey().indexOf('{'));
      if (!name.equals(last)) {
        b.append("# TYPE ").append(name).append(" counter\n");
        last = name;
      }
      b.append(e.getKey()).append(' ').append(e.getValue().sum()).append('\n');
    }
    return b.toString();
  }
}
