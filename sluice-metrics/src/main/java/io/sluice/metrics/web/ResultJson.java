package io.sluice.metrics.web;

import io.sluice.gofmt.GoFloat;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.promql.Value;

/**
 * Writes query results exactly as Prometheus's API does: timestamps as JSON numbers of seconds with the milliseconds
 * after a point, sample values as strings in Go's shortest {@code 'f'} formatting.
 */
final class ResultJson {
  private ResultJson() {}

  static String success(Value v) {
    StringBuilder sb = new StringBuilder(256);
    sb.append("{\"status\":\"success\",\"data\":{\"resultType\":\"").append(v.type().apiName())
        .append("\",\"result\":");
    if (v instanceof Value.Scalar s) {
      point(sb, s.t(), s.v());
    } else if (v instanceof Value.StringValue s) {
      sb.append('[');
      timestamp(sb, s.t());
      sb.append(',');
      string(sb, s.v());
      sb.append(']');
    } else if (v instanceof Value.Vector vec) {
      sb.append('[');
      boolean first = true;
      for (Value.Sample s : vec.samples()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        sb.append("{\"metric\":");
        labels(sb, s.labels());
        sb.append(",\"value\":");
        point(sb, vec.t(), s.v());
        sb.append('}');
      }
      sb.append(']');
    } else if (v instanceof Value.Matrix m) {
      sb.append('[');
      boolean first = true;
      for (Value.Series s : m.series()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        sb.append("{\"metric\":");
        labels(sb, s.labels());
        sb.append(",\"values\":[");
        for (int i = 0; i < s.ts().length; i++) {
          if (i > 0) {
            sb.append(',');
          }
          point(sb, s.ts()[i], s.vs()[i]);
        }
        sb.append("]}");
      }
      sb.append(']');
    }
    return sb.append("}}").toString();
  }

  static void point(StringBuilder sb, long t, double v) {
    sb.append('[');
    timestamp(sb, t);
    sb.append(",\"").append(GoFloat.format(v)).append("\"]");
  }

  static void timestamp(StringBuilder sb, long t) {
    if (t < 0) {
      sb.append('-');
      t = -t;
    }
    sb.append(t / 1000);
    long fraction = t % 1000;
    if (fraction != 0) {
      sb.append('.');
      if (fraction < 100) {
        sb.append('0');
      }
      if (fraction < 10) {
        sb.append('0');
      }
      sb.append(fraction);
    }
  }

  static void labels(StringBuilder sb, Labels l) {
    sb.append('{');
    for (int i = 0; i < l.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      string(sb, l.name(i));
      sb.append(':');
      string(sb, l.value(i));
    }
    sb.append('}');
  }

  static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
