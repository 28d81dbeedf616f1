package io.sluice.metrics.promql.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ParserTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "a + b * c|a + b * c",
      "a * b + c|a * b + c",
      "2 ^ 3 ^ 2|2 ^ 3 ^ 2",
      "foo offset 5m|foo offset 5m",
      "rate(foo{a=\"b\"}[5m] offset 1h)|rate(foo{a=\"b\"}[5m] offset 1h)",
      "sum by (a, b) (x)|sum by (a, b) (x)",
      "sum(x) without (a)|sum without (a) (x)",
      "topk(3, x)|topk(3, x)",
      "a / on(b) group_left(c) d|a / on(b) group_left(c) d",
      "a > bool 1|a > bool 1",
      "max_over_time(rate(x[1m])[5m:30s])|max_over_time(rate(x[1m])[5m:30s])",
      "x @ 1609746000|x @ 1609746000.000",
      "x @ start()|x @ start()",
      "{__name__=~\"a.*\"}|{__name__=~\"a.*\"}",
      "x[1h30m]|x[1h30m]",
  })
  void roundTrips(String input, String printed) {
    assertEquals(printed, Parser.parse(input).toString());
  }

  @Test
  void precedenceMatchesPrometheus() {
    Expr.Binary or = assertInstanceOf(Expr.Binary.class, Parser.parse("a and b or c unless d"));
    assertEquals(BinaryOp.OR, or.op());
    Expr.Binary cmp = assertInstanceOf(Expr.Binary.class, Parser.parse("a + b > c * d"));
    assertEquals(BinaryOp.GTR, cmp.op());
    Expr.Unary neg = assertInstanceOf(Expr.Unary.class, Parser.parse("-a ^ b"));
    assertInstanceOf(Expr.Binary.class, neg.expr());
    Expr.Binary mul = assertInstanceOf(Expr.Binary.class, Parser.parse("-a * b"));
    assertInstanceOf(Expr.Unary.class, mul.lhs());
    Expr.Binary minus = assertInstanceOf(Expr.Binary.class, Parser.parse("a - b - c"));
    assertInstanceOf(Expr.Binary.class, minus.lhs());
  }

  @Test
  void numbersAndStrings() {
    assertEquals(255.0, ((Expr.NumberLiteral) Parser.parse("0xff")).value());
    assertEquals(1e3, ((Expr.NumberLiteral) Parser.parse("1e3")).value());
    assertEquals(Double.POSITIVE_INFINITY, ((Expr.NumberLiteral) Parser.parse("Inf")).value());
    assertEquals(-0.5, ((Expr.NumberLiteral) Parser.parse("-.5")).value());
    assertEquals("a\nb\"", ((Expr.StringLiteral) Parser.parse("\"a\\nb\\\"\"")).value());
    assertEquals("a\\nb", ((Expr.StringLiteral) Parser.parse("`a\\nb`")).value());
    assertEquals("x", ((Expr.StringLiteral) Parser.parse("'x'")).value());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "sum(|1:5: parse error: unexpected end of input",
      "foo{a=1}|1:7: parse error: unexpected number \"1\" in label matching, expected string",
      "foo[5]|1:5: parse error: unexpected number \"5\" in range, expected duration",
      "1 and 2|1:3: parse error: set operator \"and\" not allowed in binary scalar expression",
      "rate(foo[5m], 1)|1:1: parse error: expected 1 argument(s) in call to \"rate\", got 2",
      "round()|1:1: parse error: expected at least 1 argument(s) in call to \"round\", got 0",
      "(foo + bar)[5m]|1:12: parse error: ranges only allowed for vector selectors",
      "foo offset 5m offset 1m|1:15: parse error: offset may not be set multiple times",
      "a + on(x) 1|1:3: parse error: vector matching only allowed between instant vectors",
      "a + bool b|1:3: parse error: bool modifier can only be used on comparison operators",
      "\"s\" + 1|1:5: parse error: binary expression must contain only scalar and instant vector types",
      "foo{a=~\"(\"}|1:8: parse error: invalid regular expression \"(\": missing closing )",
  })
  void errorsLookLikePrometheus(String input, String message) {
    ParseException e = assertThrows(ParseException.class, () -> Parser.parse(input));
    assertEquals(message, e.getMessage());
  }

  @Test
  void durations() {
    assertEquals(5400_000, Parser.parseDuration("1h30m"));
    assertEquals(1500, Parser.parseDuration("1s500ms"));
    assertEquals(7 * 86_400_000L, Parser.parseDuration("1w"));
    assertThrows(ParseException.class, () -> Parser.parseDuration("5"));
  }
}
