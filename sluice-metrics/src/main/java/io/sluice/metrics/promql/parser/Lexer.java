package io.sluice.metrics.promql.parser;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Splits a PromQL query into tokens. Keywords stay identifiers; the parser decides by position. */
final class Lexer {
  enum Kind {
    IDENT, NUMBER, DURATION, STRING, LPAREN, RPAREN, LBRACE, RBRACE, LBRACKET, RBRACKET, COMMA, COLON, AT,
    ADD, SUB, MUL, DIV, MOD, POW, EQLC, NEQ, LTE, LSS, GTE, GTR, EQL, EQL_REGEX, NEQ_REGEX, EOF,
    /** The lexer stopped here; {@code text} is the whole message. The parser reports it when it gets this far. */
    ERROR
  }

  record Token(Kind kind, String text, int pos) {
    String describe() {
      return switch (kind) {
        case EOF -> "end of input";
        case IDENT -> describeWord(text);
        case NUMBER -> "number \"" + text + "\"";
        case DURATION -> "duration \"" + text + "\"";
        case STRING -> "string " + text;
        default -> "\"" + text + "\"";
      };
    }
  }

  /** As Prometheus's lexer names a word in errors: keywords, operators and aggregations by their token. */
  private static String describeWord(String text) {
    String w = text.toLowerCase(Locale.ROOT);
    return switch (w) {
      case "and", "or", "unless", "atan2" -> "<op:" + text + ">";
      case "sum", "avg", "count", "min", "max", "group", "stddev", "stdvar", "topk", "bottomk", "count_values",
          "quantile" -> "<aggr:" + text + ">";
      case "offset", "by", "without", "on", "ignoring", "group_left", "group_right", "bool" -> "<" + text + ">";
      case "start", "end" -> "\"" + text + "\"";
      default -> (text.indexOf(':') >= 0 ? "metric identifier \"" : "identifier \"") + text + "\"";
    };
  }

  private final String in;
  private int pos;
  /** Inside brackets a colon separates a subquery's range and step instead of starting a metric name. */
  private int bracketDepth;
  private int parenDepth;
  private boolean braceOpen;
  private boolean gotColon;
  private final List<Token> out = new ArrayList<>();

  private Lexer(String in) {
    this.in = in;
  }

  static List<Token> lex(String input) {
    Lexer l = new Lexer(input);
    l.run();
    return l.out;
  }

  private ParseException error(int at, String msg) {
    return ParseException.at(in, at, msg);
  }

  /**
   * Tokens up to the end, or up to an error token where Prometheus's lexer stops: Prometheus lexes as its parser reads,
   * so a syntax error the parser meets first is the one reported.
   */
  private void run() {
    try {
      tokens();
    } catch (ParseException e) {
      out.add(new Token(Kind.ERROR, e.getMessage(), pos));
    }
  }

  private void tokens() {
    while (true) {
      skipSpaceAndComments();
      if (pos >= in.length()) {
        if (braceOpen) {
          throw error(pos, "unexpected end of input inside braces");
        }
        if (parenDepth != 0) {
          throw error(pos, "unclosed left parenthesis");
        }
        if (bracketDepth > 0) {
          throw error(pos, "unclosed left bracket");
        }
        out.add(new Token(Kind.EOF, "", pos));
        return;
      }
      int start = pos;
      char c = in.charAt(pos);
      if (braceOpen) {
        insideBraces(c);
        continue;
      }
      if (Character.isDigit(c) || (c == '.' && pos + 1 < in.length() && Character.isDigit(in.charAt(pos + 1)))) {
        number();
      } else if (isIdentStart(c) && !(c == ':' && bracketDepth > 0)) {
        while (pos < in.length() && isIdentPart(in.charAt(pos))) {
          pos++;
        }
        String word = in.substring(start, pos);
        String lower = word.toLowerCase(Locale.ROOT);
        if (lower.equals("inf") || lower.equals("nan")) {
          out.add(new Token(Kind.NUMBER, word, start));
        } else {
          out.add(new Token(Kind.IDENT, word, start));
        }
      } else if (c == '"' || c == '\'' || c == '`') {
        string(c);
      } else {
        operator(c);
      }
    }
  }

  /** Label matchers: names, strings, the four operators, commas and the closing brace, nothing else. */
  private void insideBraces(char c) {
    int start = pos;
    if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      while (pos < in.length() && (isIdentPart(in.charAt(pos)) && in.charAt(pos) != ':')) {
        pos++;
      }
      out.add(new Token(Kind.IDENT, in.substring(start, pos), start));
    } else if (c == '"' || c == '\'' || c == '`') {
      string(c);
    } else if (c == ',' || c == '=' || c == '}') {
      operator(c);
    } else if (c == '!') {
      char n = pos + 1 < in.length() ? in.charAt(pos + 1) : 0;
      if (n != '~' && n != '=') {
        pos++;
        throw error(start, "unexpected character after '!' inside braces: " + quote(n));
      }
      operator(c);
    } else if (c == '{') {
      throw error(start, "unexpected left brace '{'");
    } else {
      throw error(start, "unexpected character inside braces: " + quote(c));
    }
  }

  /** Right after {@code [}: a duration, and nothing else. */
  private void rangeDuration() {
    skipSpaceAndComments();
    int start = pos;
    char c = pos < in.length() ? in.charAt(pos) : 0;
    if (Character.isDigit(c) || (c == '.' && pos + 1 < in.length() && Character.isDigit(in.charAt(pos + 1)))) {
      number();
      if (out.get(out.size() - 1).kind() == Kind.NUMBER) {
        out.remove(out.size() - 1);
        throw error(start, "missing unit character in duration");
      }
    } else if (!isIdentPart(c) || c == ':') {
      throw error(start, "missing unit character in duration");
    } else {
      throw error(start, "bad duration syntax: \"\"");
    }
  }

  private void skipSpaceAndComments() {
    while (pos < in.length()) {
      char c = in.charAt(pos);
      if (Character.isWhitespace(c)) {
        pos++;
      } else if (c == '#') {
        while (pos < in.length() && in.charAt(pos) != '\n') {
          pos++;
        }
      } else {
        return;
      }
    }
  }

  static boolean isIdentStart(char c) {
    return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  static boolean isIdentPart(char c) {
    return isIdentStart(c) || (c >= '0' && c <= '9');
  }

  private static boolean isUnit(char c) {
    return c == 's' || c == 'm' || c == 'h' || c == 'd' || c == 'w' || c == 'y';
  }

  private void number() {
    int start = pos;
    if (in.startsWith("0x", pos) || in.startsWith("0X", pos)) {
      pos += 2;
      while (pos < in.length() && Character.digit(in.charAt(pos), 16) >= 0) {
        pos++;
      }
      out.add(new Token(Kind.NUMBER, in.substring(start, pos), start));
      return;
    }
    while (pos < in.length() && Character.isDigit(in.charAt(pos))) {
      pos++;
    }
    // A duration is digits followed by a unit, possibly repeated: 1h30m, 500ms.
    if (pos < in.length() && isUnit(in.charAt(pos))) {
      pos = start;
      while (pos < in.length() && Character.isDigit(in.charAt(pos))) {
        while (pos < in.length() && Character.isDigit(in.charAt(pos))) {
          pos++;
        }
        if (in.startsWith("ms", pos)) {
          pos += 2;
        } else if (pos < in.length() && isUnit(in.charAt(pos))) {
          pos++;
        } else {
          throw error(start, "bad duration syntax: \"" + in.substring(start, pos) + "\"");
        }
      }
      if (pos < in.length() && isIdentPart(in.charAt(pos)) && in.charAt(pos) != ':') {
        throw error(start, "bad duration syntax: \"" + in.substring(start, pos + 1) + "\"");
      }
      out.add(new Token(Kind.DURATION, in.substring(start, pos), start));
      return;
    }
    if (pos < in.length() && in.charAt(pos) == '.') {
      pos++;
      while (pos < in.length() && Character.isDigit(in.charAt(pos))) {
        pos++;
      }
    }
    if (pos < in.length() && (in.charAt(pos) == 'e' || in.charAt(pos) == 'E')) {
      int save = pos;
      pos++;
      if (pos < in.length() && (in.charAt(pos) == '+' || in.charAt(pos) == '-')) {
        pos++;
      }
      if (pos < in.length() && Character.isDigit(in.charAt(pos))) {
        while (pos < in.length() && Character.isDigit(in.charAt(pos))) {
          pos++;
        }
      } else {
        pos = save;
      }
    }
    if (pos < in.length() && isIdentPart(in.charAt(pos))) {
      throw error(start, "bad number or duration syntax: \"" + in.substring(start, pos + 1) + "\"");
    }
    out.add(new Token(Kind.NUMBER, in.substring(start, pos), start));
  }

  private void string(char quote) {
    int start = pos;
    pos++;
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (pos >= in.length()) {
        throw error(start, "unterminated quoted string " + quote);
      }
      char c = in.charAt(pos++);
      if (c == quote) {
        break;
      }
      if (quote == '`') {
        sb.append(c);
        continue;
      }
      if (c == '\n') {
        throw error(start, "unterminated quoted string " + quote);
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      if (pos >= in.length()) {
        throw error(start, "unterminated quoted string " + quote);
      }
      char e = in.charAt(pos++);
      switch (e) {
        case 'a' -> sb.append('\u0007');
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'v' -> sb.append('\u000b');
        case '\\' -> sb.append('\\');
        case '"', '\'' -> sb.append(e);
        case 'x' -> sb.append((char) hex(2));
        case 'u', 'U' -> {
          int at = pos - 2;
          int cp = hex(e == 'u' ? 4 : 8);
          // As Go's scanner: past U+10FFFF, or a surrogate half, is no code point.
          if (cp < 0 || cp > Character.MAX_CODE_POINT || (cp >= 0xD800 && cp <= 0xDFFF)) {
            throw error(at, "escape sequence is invalid Unicode code point");
          }
          sb.appendCodePoint(cp);
        }
        case '0', '1', '2', '3', '4', '5', '6', '7' -> {
          pos--;
          int v = 0;
          for (int i = 0; i < 3; i++) {
            if (pos >= in.length() || in.charAt(pos) < '0' || in.charAt(pos) > '7') {
              throw error(pos, "illegal character in escape sequence");
            }
            v = v * 8 + (in.charAt(pos++) - '0');
          }
          sb.append((char) v);
        }
        default -> throw error(pos - 2, "unknown escape sequence " + quote(e));
      }
    }
    out.add(new Token(Kind.STRING, sb.toString(), start));
  }

  private static String quote(char c) {
    return "'" + c + "'";
  }

  private int hex(int n) {
    int v = 0;
    for (int i = 0; i < n; i++) {
      int d = pos < in.length() ? Character.digit(in.charAt(pos), 16) : -1;
      if (d < 0) {
        throw error(pos, "illegal character in escape sequence");
      }
      v = v * 16 + d;
      pos++;
    }
    return v;
  }

  private void operator(char c) {
    int start = pos;
    String two = pos + 1 < in.length() ? in.substring(pos, pos + 2) : "";
    Kind k2 = switch (two) {
      case "==" -> Kind.EQLC;
      case "!=" -> Kind.NEQ;
      case "<=" -> Kind.LTE;
      case ">=" -> Kind.GTE;
      case "=~" -> Kind.EQL_REGEX;
      case "!~" -> Kind.NEQ_REGEX;
      default -> null;
    };
    if (k2 != null) {
      pos += 2;
      out.add(new Token(k2, two, start));
      return;
    }
    Kind k = switch (c) {
      case '(' -> Kind.LPAREN;
      case ')' -> Kind.RPAREN;
      case '{' -> Kind.LBRACE;
      case '}' -> Kind.RBRACE;
      case '[' -> Kind.LBRACKET;
      case ']' -> Kind.RBRACKET;
      case ',' -> Kind.COMMA;
      case ':' -> Kind.COLON;
      case '@' -> Kind.AT;
      case '+' -> Kind.ADD;
      case '-' -> Kind.SUB;
      case '*' -> Kind.MUL;
      case '/' -> Kind.DIV;
      case '%' -> Kind.MOD;
      case '^' -> Kind.POW;
      case '<' -> Kind.LSS;
      case '>' -> Kind.GTR;
      case '=' -> Kind.EQL;
      default -> null;
    };
    if (k == null) {
      throw error(start, "unexpected character: " + quote(c));
    }
    pos++;
    switch (k) {
      case LPAREN -> parenDepth++;
      case RPAREN -> {
        if (--parenDepth < 0) {
          throw error(pos, "unexpected right parenthesis ')'");
        }
      }
      case LBRACKET -> {
        if (bracketDepth > 0) {
          throw error(start, "unexpected left bracket '['");
        }
        bracketDepth++;
        gotColon = false;
      }
      case RBRACKET -> {
        if (bracketDepth == 0) {
          throw error(start, "unexpected right bracket ']'");
        }
        bracketDepth--;
      }
      case COLON -> {
        if (gotColon) {
          throw error(start, "unexpected colon ':'");
        }
        gotColon = true;
      }
      case LBRACE -> braceOpen = true;
      case RBRACE -> {
        if (!braceOpen) {
          throw error(start, "unexpected right brace '}'");
        }
        braceOpen = false;
      }
      default -> {
      }
    }
    out.add(new Token(k, String.valueOf(c), start));
    if (k == Kind.LBRACKET) {
      rangeDuration();
    }
  }
}
