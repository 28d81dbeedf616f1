package io.sluice.metrics.textparse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.metrics.model.Labels;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExpositionParserTest {
  @Test
  void parsesTextFormat() throws Exception {
    String text = """
        # HELP http_requests_total The total number of HTTP requests.
        # TYPE http_requests_total counter
        http_requests_total{method="post",code="200"} 1027 1395066363000
        http_requests_total{method="post",code="400"}    3 1395066363000

        # Escaping in label values:
        msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9
        metric_without_timestamp_and_labels 12.47
        something_weird{problem="division by zero"} +Inf -3982045
        nan_metric NaN
        """;
    List<ExpositionParser.Entry> e = ExpositionParser.parse(text, false);
    assertEquals(6, e.size());
    assertEquals(Labels.of("__name__", "http_requests_total", "method", "post", "code", "200"), e.get(0).labels());
    assertEquals(1027, e.get(0).value());
    assertEquals(1395066363000L, e.get(0).timestamp());
    assertEquals("C:\\DIR\\FILE.TXT", e.get(2).labels().get("path"));
    assertEquals("Cannot find file:\n\"FILE.TXT\"", e.get(2).labels().get("error"));
    assertEquals(1.458255915e9, e.get(2).value());
    assertNull(e.get(3).timestamp());
    assertEquals(Double.POSITIVE_INFINITY, e.get(4).value());
    assertEquals(-3982045L, e.get(4).timestamp());
    assertTrue(Double.isNaN(e.get(5).value()));
  }

  @Test
  void parsesOpenMetricsWithSecondsTimestampsAndExemplars() throws Exception {
    String text = """
        # TYPE foo counter
        # HELP foo A counter.
        foo_total{a="b"} 17.0 1520879607.789 # {trace_id="KOO5S4vxi0o"} 0.67
        foo_created{a="b"} 1520430000.123
        # EOF
        """;
    List<ExpositionParser.Entry> e = ExpositionParser.parse(text, true);
    assertEquals(2, e.size());
    assertEquals(17.0, e.get(0).value());
    assertEquals(1520879607789L, e.get(0).timestamp());
  }

  @Test
  void rejectsMalformedInput() {
    assertThrows(ExpositionParser.ParseError.class, () -> ExpositionParser.parse("foo{a=\"b\" 1\n", false));
    assertThrows(ExpositionParser.ParseError.class, () -> ExpositionParser.parse("foo bar\n", false));
    assertThrows(ExpositionParser.ParseError.class, () -> ExpositionParser.parse("foo 1 2 3\n", false));
    assertThrows(ExpositionParser.ParseError.class, () -> ExpositionParser.parse("# TYPE foo bogus\n", false));
    assertThrows(ExpositionParser.ParseError.class, () -> ExpositionParser.parse("foo 1\n", true));
    assertThrows(ExpositionParser.ParseError.class, () -> ExpositionParser.parse("foo{a=\"1\",a=\"2\"} 1\n", false));
  }

  @Test
  void contentTypeSelectsParser() {
    assertTrue(ExpositionParser.isOpenMetrics("application/openmetrics-text; version=1.0.0; charset=utf-8"));
    assertTrue(!ExpositionParser.isOpenMetrics("text/plain; version=0.0.4"));
  }
}
