package io.sluice.app;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The pauses of a JVM's {@code -Xlog:gc:…:uptime} log: young and full collections, how many, how long in all and at
 * most, and their share of the time the log covers. A heap too small for its load shows as full collections back to
 * back and a share of several percent; a heap that holds it, as short young pauses.
 */
record GcPauses(int young, double youngMillis, double longestYoungMillis, int full, double fullMillis,
    double longestFullMillis, double seconds) {
  // [12.345s] GC(7) Pause Young (Allocation Failure) 812M->214M(1963M) 41.204ms
  private static final Pattern PAUSE = Pattern.compile(
      "^\\[(\\d+[.,]\\d+)s\\].*\\bPause (Young|Full)\\b.*?(\\d+[.,]\\d+)ms\\s*$");

  static GcPauses of(List<String> lines) {
    int young = 0;
    int full = 0;
    double youngMillis = 0;
    double fullMillis = 0;
    double longestYoung = 0;
    double longestFull = 0;
    double seconds = 0;
    for (String line : lines) {
      Matcher m = PAUSE.matcher(line);
      if (!m.find()) {
        continue;
      }
      seconds = Double.parseDouble(m.group(1).replace(',', '.'));
      double ms = Double.parseDouble(m.group(3).replace(',', '.'));
      if (m.group(2).equals("Young")) {
        young++;
        youngMillis += ms;
        longestYoung = Math.max(longestYoung, ms);
      } else {
        full++;
        fullMillis += ms;
        longestFull = Math.max(longestFull, ms);
      }
    }
    return new GcPauses(young, youngMillis, longestYoung, full, fullMillis, longestFull, seconds);
  }

  /** The share of the log's time spent in pauses, 0 to 1. */
  double share() {
    return seconds == 0 ? 0 : (youngMillis + fullMillis) / 1000 / seconds;
  }

  String summary(String jvm) {
    return String.format("GC of %s over %.0f s: %d young pauses, %.1f s in all, the longest %.0f ms; %d full, %.1f s"
        + " in all, the longest %.0f ms; %.1f%% of the time paused", jvm, seconds, young, youngMillis / 1000,
        longestYoungMillis, full, fullMillis / 1000, longestFullMillis, 100 * share());
  }
}
