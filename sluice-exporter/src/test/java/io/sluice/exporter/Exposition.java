package io.sluice.exporter;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/** One scrape of an exporter, as text and as samples, read the way a scraper reads the text format. */
record Exposition(String text, String contentType, List<Sample> samples) {

  /** One line {@code name{labels} value}. */
  record Sample(String name, Map<String, String> labels, double value) {
    boolean has(String... labelPairs) {
      for (int i = 0; i < labelPairs.length; i += 2) {
        if (!labelPairs[i + 1].equals(labels.get(labelPairs[i]))) {
          return false;
        }
      }
      return true;
    }
  }

  static Exposition scrape(String url, String accept) {
    try {
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + "/metrics")).timeout(Duration.ofSeconds(30));
      if (accept != null) {
        b.header("Accept", accept);
      }
      HttpResponse<String> r = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new AssertionError("scrape answered " + r.statusCode() + ": " + r.body());
      }
      return new Exposition(r.body(), r.headers().firstValue("content-type").orElse(""), parse(r.body()));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static Exposition scrape(String url) {
    return scrape(url, null);
  }

  List<Sample> all(String name, String... labelPairs) {
    return samples.stream().filter(s -> s.name().equals(name) && s.has(labelPairs)).toList();
  }

  Optional<Sample> first(String name, String... labelPairs) {
    return all(name, labelPairs).stream().findFirst();
  }

  /** Sum over the matching series; empty when there is none. */
  OptionalDouble sum(String name, String... labelPairs) {
    List<Sample> m = all(name, labelPairs);
    return m.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(m.stream().mapToDouble(Sample::value).sum());
  }

  double value(String name, String... labelPairs) {
    return sum(name, labelPairs).orElseThrow(() -> new AssertionError("no series " + name + " "
        + String.join(",", labelPairs) + " in:\n" + text));
  }

  static List<Sample> parse(String text) {
    List<Sample> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int brace = line.indexOf('{');
      int space;
      String name;
      Map<String, String> labels = new LinkedHashMap<>();
      if (brace >= 0 && brace < line.indexOf(' ')) {
        name = line.substring(0, brace);
        int i = brace + 1;
        while (line.charAt(i) != '}') {
          int eq = line.indexOf('=', i);
          String key = line.substring(i, eq);
          StringBuilder v = new StringBuilder();
          int j = eq + 2;
          for (; line.charAt(j) != '"'; j++) {
            char c = line.charAt(j);
            if (c == '\\') {
              char n = line.charAt(++j);
              v.append(n == 'n' ? '\n' : n);
            } else {
              v.append(c);
            }
          }
          labels.put(key, v.toString());
          i = j + 1;
          if (line.charAt(i) == ',') {
            i++;
          }
        }
        space = i + 1;
      } else {
        space = line.indexOf(' ');
        name = line.substring(0, space);
      }
      String[] rest = line.substring(space).trim().split(" ");
      out.add(new Sample(name, labels, parseValue(rest[0])));
    }
    return out;
  }

  private static double parseValue(String v) {
    return switch (v) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(v);
    };
  }
}
