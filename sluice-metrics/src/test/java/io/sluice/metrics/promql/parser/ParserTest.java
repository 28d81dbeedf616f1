package io.sluice.metrics.promql.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ParserTest {

  /** Each message and position as Prometheus 2.42 answers the same query. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "sum(|1:5: parse error: unclosed left parenthesis",
      "(foo|1:5: parse error: unclosed left parenthesis",
      "foo)|1:5: parse error: unexpected right parenthesis ')'",
      "foo]|1:4: parse error: unexpected right bracket ']'",
      "foo[5m|1:7: parse error: unclosed left bracket",
      "foo[5]|1:5: parse error: missing unit character in duration",
      "foo[]|1:5: parse error: missing unit character in duration",
      "foo[abc]|1:5: parse error: bad duration syntax: \"\"",
      "foo[0s]|1:5: parse error: duration must be greater than 0",
      "foo offset 0s|1:12: parse error: duration must be greater than 0",
      "foo[5m:1m:1m]|1:10: parse error: unexpected colon ':'",
      "foo{a=1}|1:7: parse error: unexpected character inside braces: '1'",
      "foo{a:b=\"c\"}|1:6: parse error: unexpected character inside braces: ':'",
      "foo{a!b=\"c\"}|1:6: parse error: unexpected character after '!' inside braces: 'b'",
      "foo{a=\"b\"|1:10: parse error: unexpected end of input inside braces",
      "1 and 2|1:1: parse error: set operator \"and\" not allowed in binary scalar expression",
      "rate(foo[5m], 1)|1:1: parse error: expected 1 argument(s) in call to \"rate\", got 2",
      "round()|1:1: parse error: expected at least 1 argument(s) in call to \"round\", got 0",
      "abs(foo,)|1:8: parse error: trailing commas not allowed in function call args",
      "hour(foo[5m])|1:6: parse error: expected type instant vector in call to function \"hour\", got range vector",
      "label_join(a, \"x\", \"y\", 1)|1:25: parse error: expected type string in call to function \"label_join\", got scalar",
      "sum()|1:1: parse error: no arguments for aggregate expression provided",
      "sum(a, b)|1:1: parse error: wrong number of arguments for aggregate expression provided, expected 1, got 2",
      "topk(a)|1:1: parse error: wrong number of arguments for aggregate expression provided, expected 2, got 1",
      "quantile(0.5, \"a\")|1:15: parse error: expected type instant vector in aggregation expression, got string",
      "count_values(1, a)|1:14: parse error: expected type string in aggregation parameter, got scalar",
      "sum by (a) without (b) (c)|1:12: parse error: unexpected <without> in aggregation",
      "(foo + bar)[5m]|1:12: parse error: ranges only allowed for vector selectors",
      "x offset 5m [5m]|1:13: parse error: no offset modifiers allowed before range",
      "x @ 5 [5m]|1:7: parse error: no @ modifiers allowed before range",
      "rate(x[5m])[5m:][1m:]|1:1: parse error: subquery is only allowed on instant vector, got matrix instead",
      "foo offset 5m offset 1m|1:1: parse error: offset may not be set multiple times",
      "x @ 1 @ 2|1:1: parse error: @ <timestamp> may not be set multiple times",
      "(x) offset 5m|1:1: parse error: offset modifier must be preceded by an instant vector selector or range vector selector or a subquery",
      "a + on(x) 1|1:1: parse error: vector matching only allowed between instant vectors",
      "a and on(x) group_left b|1:1: parse error: no grouping allowed for \"and\" operation",
      "a + bool b|1:3: parse error: bool modifier can only be used on comparison operators",
      "1 < 2|1:3: parse error: comparisons between scalars must use BOOL modifier",
      "\"s\" + 1|1:1: parse error: binary expression must contain only scalar and instant vector types",
      "1 + x[5m]|1:5: parse error: binary expression must contain only scalar and instant vector types",
      "-x[5m]|1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got \"range vector\"",
      "foo{__name__=\"bar\"}|1:1: parse error: metric name must not be set twice: \"foo\" or \"bar\"",
      "foo{a=~\"(\"}|1:5: parse error: error parsing regexp: missing closing ): `^(?:()$`",
  })
  void errorsLookLikePrometheus(String input, String message) {
    ParseException e = assertThrows(ParseException.class, () -> Parser.parse(input));
    assertEquals(message, e.getMessage());
  }

  @Test
  void emptyMatchingBesideAScalarIsDropped() {
    Expr.Binary b = (Expr.Binary) Parser.parse("a + on() 1");
    assertEquals(null, b.matching());
  }

  @Test
  void durations() {
    assertEquals(5400_000, Parser.parseDuration("1h30m"));
    assertEquals(1500, Parser.parseDuration("1s500ms"));
    assertEquals(7 * 86_400_000L, Parser.parseDuration("1w"));
    assertThrows(ParseException.class, () -> Parser.parseDuration("5"));
  }
}
