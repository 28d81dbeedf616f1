package io.sluice.metrics.promql.parser;

import io.sluice.gofmt.GoDuration;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.promql.parser.Lexer.Kind;
import io.sluice.metrics.promql.parser.Lexer.Token;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Recursive-descent PromQL parser with Prometheus's operator precedence, followed by the same type checks Prometheus
 * makes before evaluation. It knows nothing about storage or evaluation.
 */
public final class Parser {
  private static final Set<String> KEYWORDS_AFTER_EXPR =
      Set.of("and", "or", "unless", "atan2", "offset", "bool", "on", "ignoring", "group_left", "group_right", "by",
          "without");

  private final String input;
  private final List<Token> tokens;
  private int i;
  /** Where each expression starts, for errors Prometheus reports at a node rather than at a token. */
  private final Map<Expr, Integer> starts = new IdentityHashMap<>();

  private Parser(String input) {
    this.input = input;
    this.tokens = Lexer.lex(input);
  }

  /** Parses and type-checks a query; throws {@link ParseException} with Prometheus's message shape. */
  public static Expr parse(String input) {
    Parser p = new Parser(input);
    if (p.peek().kind() == Kind.EOF) {
      throw ParseException.at(input, 0, "no expression found in input");
    }
    Expr e = p.expr(0);
    if (p.peek().kind() != Kind.EOF) {
      throw p.unexpected(p.peek(), null);
    }
    return e;
  }

  /** Parses a series selector as used by {@code match[]} in the API. */
  public static List<Matcher> parseSelector(String input) {
    Expr e = parse(input);
    if (Expr.unwrap(e) instanceof Expr.VectorSelector vs && vs.offset() == 0 && vs.at() == null) {
      return vs.matchers();
    }
    throw new ParseException("1:1: parse error: expected vector selector, got " + e.type().description());
  }

  /** Prometheus's spelling of a duration: 0s, 90s as 1m30s, 1h14m, 90d (not 12w6d). */
  public static String formatDuration(long ms) {
    return Printer.duration(ms);
  }

  /** A duration such as {@code 5m} or {@code 1h30m}, in milliseconds; refused as PromQL refuses it. */
  public static long parseDuration(String s) {
    try {
      return GoDuration.parseMillis(s);
    } catch (IllegalArgumentException e) {
      throw new ParseException(e.getMessage());
    }
  }

  // ---- tokens

  private Token peek() {
    return lexed(tokens.get(i));
  }

  /** A token, or the lexer's error once the parser reaches it. */
  private static Token lexed(Token t) {
    if (t.kind() == Kind.ERROR) {
      throw new ParseException(t.text());
    }
    return t;
  }

  private Token peek(int ahead) {
    return tokens.get(Math.min(i + ahead, tokens.size() - 1));
  }

  private Token next() {
    return lexed(tokens.get(i++));
  }

  private boolean isWord(Token t, String w) {
    return t.kind() == Kind.IDENT && t.text().toLowerCase(Locale.ROOT).equals(w);
  }

  private Token expect(Kind k, String context) {
    Token t = next();
    if (t.kind() != k) {
      throw unexpected(t, context);
    }
    return t;
  }

  private ParseException unexpected(Token t, String context) {
    String msg = "unexpected " + t.describe();
    if (context != null) {
      msg += " in " + context;
    }
    return ParseException.at(input, t.pos(), msg);
  }

  private ParseException error(Token t, String msg) {
    return ParseException.at(input, t.pos(), msg);
  }

  /** An error at the start of an expression, as Prometheus's type checks report them. */
  private ParseException error(Expr e, String msg) {
    return ParseException.at(input, startOf(e), msg);
  }

  private <T extends Expr> T startsAt(int pos, T e) {
    starts.putIfAbsent(e, pos);
    return e;
  }

  private int startOf(Expr e) {
    return starts.getOrDefault(e, 0);
  }

  // ---- expressions

  private BinaryOp binaryOp(Token t) {
    return switch (t.kind()) {
      case ADD -> BinaryOp.ADD;
      case SUB -> BinaryOp.SUB;
      case MUL -> BinaryOp.MUL;
      case DIV -> BinaryOp.DIV;
      case MOD -> BinaryOp.MOD;
      case POW -> BinaryOp.POW;
      case EQLC -> BinaryOp.EQL;
      case NEQ -> BinaryOp.NEQ;
      case LTE -> BinaryOp.LTE;
      case LSS -> BinaryOp.LSS;
      case GTE -> BinaryOp.GTE;
      case GTR -> BinaryOp.GTR;
      case IDENT -> switch (t.text().toLowerCase(Locale.ROOT)) {
        case "and" -> BinaryOp.AND;
        case "or" -> BinaryOp.OR;
        case "unless" -> BinaryOp.UNLESS;
        case "atan2" -> BinaryOp.ATAN2;
        default -> null;
      };
      default -> null;
    };
  }

  private Expr expr(int minPrec) {
    Expr lhs = unary();
    while (true) {
      Token opTok = peek();
      BinaryOp op = binaryOp(opTok);
      if (op == null || op.precedence() < minPrec) {
        return lhs;
      }
      next();
      boolean returnBool = false;
      if (isWord(peek(), "bool")) {
        next();
        returnBool = true;
      }
      VectorMatching matching = null;
      if (isWord(peek(), "on") || isWord(peek(), "ignoring")) {
        boolean on = isWord(next(), "on");
        List<String> labels = labelList();
        VectorMatching.Cardinality card =
            op.isSetOperator() ? VectorMatching.Cardinality.MANY_TO_MANY : VectorMatching.Cardinality.ONE_TO_ONE;
        List<String> include = List.of();
        if (isWord(peek(), "group_left") || isWord(peek(), "group_right")) {
          Token g = next();
          card = isWord(g, "group_left") ? VectorMatching.Cardinality.MANY_TO_ONE
              : VectorMatching.Cardinality.ONE_TO_MANY;
          if (peek().kind() == Kind.LPAREN) {
            include = labelList();
          }
        }
        matching = new VectorMatching(card, labels, on, include);
      } else if (isWord(peek(), "group_left") || isWord(peek(), "group_right")) {
        throw unexpected(peek(), null);
      }
      Expr rhs = expr(op.rightAssociative() ? op.precedence() : op.precedence() + 1);
      lhs = startsAt(startOf(lhs), binary(opTok, op, lhs, rhs, matching, returnBool));
    }
  }

  /** Prometheus's checks of a binary expression, in its order. */
  private Expr binary(Token at, BinaryOp op, Expr lhs, Expr rhs, VectorMatching matching, boolean returnBool) {
    ValueType lt = lhs.type();
    ValueType rt = rhs.type();
    if (returnBool && !op.isComparison()) {
      throw error(at, "bool modifier can only be used on comparison operators");
    }
    if (op.isComparison() && !returnBool && lt == ValueType.SCALAR && rt == ValueType.SCALAR) {
      throw error(at, "comparisons between scalars must use BOOL modifier");
    }
    if (op.isSetOperator() && matching != null && matching.card() == VectorMatching.Cardinality.ONE_TO_ONE) {
      matching = new VectorMatching(VectorMatching.Cardinality.MANY_TO_MANY, matching.labels(), matching.on(),
          matching.include());
    }
    if (matching != null && matching.on()) {
      for (String l : matching.include()) {
        if (matching.labels().contains(l)) {
          throw error(at, "label \"" + l + "\" must not occur in ON and GROUP clause at once");
        }
      }
    }
    if (lt != ValueType.SCALAR && lt != ValueType.VECTOR) {
      throw error(lhs, "binary expression must contain only scalar and instant vector types");
    }
    if (rt != ValueType.SCALAR && rt != ValueType.VECTOR) {
      throw error(rhs, "binary expression must contain only scalar and instant vector types");
    }
    boolean bothVector = lt == ValueType.VECTOR && rt == ValueType.VECTOR;
    if (!bothVector && matching != null) {
      // on() and ignoring() without labels are allowed, and dropped, where a side is a scalar.
      if (!matching.labels().isEmpty()) {
        throw error(lhs, "vector matching only allowed between instant vectors");
      }
      matching = null;
    } else if (bothVector && op.isSetOperator() && matching != null
        && matching.card() != VectorMatching.Cardinality.MANY_TO_MANY) {
      throw error(lhs, "no grouping allowed for \"" + op.symbol() + "\" operation");
    }
    if ((lt == ValueType.SCALAR || rt == ValueType.SCALAR) && op.isSetOperator()) {
      throw error(lhs, "set operator \"" + op.symbol() + "\" not allowed in binary scalar expression");
    }
    if (bothVector && matching == null) {
      matching = VectorMatching.defaultFor(op);
    }
    return new Expr.Binary(op, lhs, rhs, matching, returnBool);
  }

  private Expr unary() {
    Token t = peek();
    return startsAt(t.pos(), unaryAt(t));
  }

  private Expr unaryAt(Token t) {
    if (t.kind() == Kind.SUB || t.kind() == Kind.ADD) {
      next();
      Expr operand = expr(BinaryOp.POW.precedence());
      if (operand.type() != ValueType.SCALAR && operand.type() != ValueType.VECTOR) {
        throw error(t, "unary expression only allowed on expressions of type scalar or instant vector, got \""
            + operand.type().description() + "\"");
      }
      if (t.kind() == Kind.ADD) {
        return operand;
      }
      if (operand instanceof Expr.NumberLiteral n) {
        return new Expr.NumberLiteral(-n.value());
      }
      return new Expr.Unary(true, operand);
    }
    Expr p = startsAt(t.pos(), primary());
    return postfix(p);
  }

  private Expr postfix(Expr e) {
    while (true) {
      Token t = peek();
      if (t.kind() == Kind.LBRACKET) {
        e = startsAt(startOf(e), rangeOrSubquery(e));
      } else if (isWord(t, "offset")) {
        next();
        boolean neg = false;
        if (peek().kind() == Kind.SUB) {
          next();
          neg = true;
        } else if (peek().kind() == Kind.ADD) {
          next();
        }
        long d = duration("offset");
        e = startsAt(startOf(e), withOffset(e, neg ? -d : d));
      } else if (t.kind() == Kind.AT) {
        next();
        e = startsAt(startOf(e), withAt(e, atModifier()));
      } else {
        return e;
      }
    }
  }

  private long duration(String context) {
    Token d = next();
    if (d.kind() != Kind.DURATION) {
      throw error(d, "unexpected " + d.describe() + " in " + context + ", expected duration");
    }
    long ms = parseDuration(d.text());
    if (ms == 0) {
      throw error(d, "duration must be greater than 0");
    }
    return ms;
  }

  private Expr.At atModifier() {
    Token t = next();
    if (t.kind() == Kind.IDENT && (isWord(t, "start") || isWord(t, "end"))) {
      expect(Kind.LPAREN, "@ modifier");
      expect(Kind.RPAREN, "@ modifier");
      return new Expr.At(isWord(t, "start") ? Expr.At.Kind.START : Expr.At.Kind.END, 0);
    }
    boolean neg = false;
    if (t.kind() == Kind.SUB || t.kind() == Kind.ADD) {
      neg = t.kind() == Kind.SUB;
      t = next();
    }
    if (t.kind() != Kind.NUMBER) {
      throw error(t, "unexpected " + t.describe() + " in @, expected timestamp");
    }
    double secs = number(t);
    if (neg) {
      secs = -secs;
    }
    if (Double.isNaN(secs) || Double.isInfinite(secs)) {
      throw error(t, "timestamp out of bounds for @ modifier: " + secs);
    }
    return new Expr.At(Expr.At.Kind.TIME, Math.round(secs * 1000));
  }

  private Expr withOffset(Expr e, long offset) {
    if (e instanceof Expr.VectorSelector vs) {
      if (vs.offset() != 0) {
        throw error(e, "offset may not be set multiple times");
      }
      return vs.withOffset(offset);
    }
    if (e instanceof Expr.MatrixSelector ms) {
      if (ms.selector().offset() != 0) {
        throw error(e, "offset may not be set multiple times");
      }
      return new Expr.MatrixSelector(ms.selector().withOffset(offset), ms.range());
    }
    if (e instanceof Expr.Subquery sq) {
      if (sq.offset() != 0) {
        throw error(e, "offset may not be set multiple times");
      }
      return new Expr.Subquery(sq.expr(), sq.range(), sq.step(), offset, sq.at());
    }
    throw error(e, "offset modifier must be preceded by an instant vector selector or range vector selector or a "
        + "subquery");
  }

  private Expr withAt(Expr e, Expr.At a) {
    if (e instanceof Expr.VectorSelector vs) {
      if (vs.at() != null) {
        throw error(e, "@ <timestamp> may not be set multiple times");
      }
      return vs.withAt(a);
    }
    if (e instanceof Expr.MatrixSelector ms) {
      if (ms.selector().at() != null) {
        throw error(e, "@ <timestamp> may not be set multiple times");
      }
      return new Expr.MatrixSelector(ms.selector().withAt(a), ms.range());
    }
    if (e instanceof Expr.Subquery sq) {
      if (sq.at() != null) {
        throw error(e, "@ <timestamp> may not be set multiple times");
      }
      return new Expr.Subquery(sq.expr(), sq.range(), sq.step(), sq.offset(), a);
    }
    throw error(e, "@ modifier must be preceded by an instant vector selector or range vector selector or a "
        + "subquery");
  }

  private Expr rangeOrSubquery(Expr e) {
    Token open = next();
    long range = duration("range");
    if (peek().kind() == Kind.COLON) {
      next();
      long step = 0;
      if (peek().kind() == Kind.DURATION) {
        step = duration("subquery");
      }
      expect(Kind.RBRACKET, "subquery selector");
      if (e.type() != ValueType.VECTOR) {
        throw error(e, "subquery is only allowed on instant vector, got " + e.type().apiName() + " instead");
      }
      return new Expr.Subquery(e, range, step, 0, null);
    }
    expect(Kind.RBRACKET, "matrix selector");
    if (!(e instanceof Expr.VectorSelector vs)) {
      throw error(open, "ranges only allowed for vector selectors");
    }
    if (vs.offset() != 0) {
      throw error(open, "no offset modifiers allowed before range");
    }
    if (vs.at() != null) {
      throw error(open, "no @ modifiers allowed before range");
    }
    return new Expr.MatrixSelector(vs, range);
  }

  private double number(Token t) {
    String s = t.text().toLowerCase(Locale.ROOT);
    if (s.equals("inf")) {
      return Double.POSITIVE_INFINITY;
    }
    if (s.equals("nan")) {
      return Double.NaN;
    }
    try {
      // "0x" alone, or a hex literal past 64 bits, is a syntax error as in Prometheus, not a crash.
      return s.startsWith("0x") ? Long.parseLong(s.substring(2), 16) : Double.parseDouble(s);
    } catch (NumberFormatException e) {
      throw error(t, "bad number or duration syntax: \"" + t.text() + "\"");
    }
  }

  private Expr primary() {
    Token t = next();
    switch (t.kind()) {
      case NUMBER:
        return new Expr.NumberLiteral(number(t));
      case STRING:
        return new Expr.StringLiteral(t.text());
      case LPAREN: {
        Expr inner = expr(0);
        expect(Kind.RPAREN, "paren expression");
        return new Expr.Paren(inner);
      }
      case LBRACE:
        i--;
        return selector(null, t);
      case IDENT:
        return identifier(t);
      case EOF:
        throw error(t, "unexpected end of input");
      default:
        throw unexpected(t, null);
    }
  }

  private Expr identifier(Token t) {
    String word = t.text();
    AggregateOp agg = AggregateOp.byKeyword(word);
    Token after = peek();
    if (agg != null && (after.kind() == Kind.LPAREN || isWord(after, "by") || isWord(after, "without"))) {
      return aggregate(t, agg);
    }
    if (after.kind() == Kind.LPAREN) {
      Function f = Function.byName(word);
      if (f == null) {
        String why = Function.whyUnsupported(word);
        throw error(t, why != null ? why : "unknown function with name \"" + word + "\"");
      }
      return call(t, f);
    }
    if (KEYWORDS_AFTER_EXPR.contains(word.toLowerCase(Locale.ROOT)) || agg != null) {
      throw unexpected(t, null);
    }
    return selector(word, t);
  }

  /** {@code (a, b, ...)}: the arguments of a function or an aggregation; a trailing comma is refused. */
  private List<Expr> arguments(String context) {
    expect(Kind.LPAREN, context);
    List<Expr> args = new ArrayList<>();
    if (peek().kind() != Kind.RPAREN) {
      while (true) {
        args.add(expr(0));
        if (peek().kind() == Kind.COMMA) {
          Token comma = next();
          if (peek().kind() == Kind.RPAREN) {
            throw error(comma, "trailing commas not allowed in function call args");
          }
          continue;
        }
        break;
      }
    }
    expect(Kind.RPAREN, context);
    return args;
  }

  private Expr call(Token at, Function f) {
    List<Expr> args = arguments("function call");
    int nargs = f.argTypes().size();
    if (f.variadic() == 0) {
      if (nargs != args.size()) {
        throw error(at, "expected " + nargs + " argument(s) in call to \"" + f.name() + "\", got " + args.size());
      }
    } else {
      int min = nargs - 1;
      if (min > args.size()) {
        throw error(at, "expected at least " + min + " argument(s) in call to \"" + f.name() + "\", got "
            + args.size());
      }
      if (f.variadic() > 0 && min + f.variadic() < args.size()) {
        throw error(at, "expected at most " + (min + f.variadic()) + " argument(s) in call to \"" + f.name()
            + "\", got " + args.size());
      }
    }
    for (int a = 0; a < args.size(); a++) {
      ValueType want = f.argTypes().get(Math.min(a, nargs - 1));
      if (a >= nargs && f.variadic() == 0) {
        break;
      }
      if (args.get(a).type() != want) {
        throw error(args.get(a), "expected type " + want.description() + " in call to function \"" + f.name()
            + "\", got " + args.get(a).type().description());
      }
    }
    return new Expr.Call(f, List.copyOf(args));
  }

  private Expr aggregate(Token at, AggregateOp op) {
    List<String> grouping = List.of();
    boolean without = false;
    boolean groupingSeen = false;
    if (isWord(peek(), "by") || isWord(peek(), "without")) {
      without = isWord(next(), "without");
      grouping = labelList();
      groupingSeen = true;
    }
    List<Expr> args = arguments("aggregation");
    if (!groupingSeen && (isWord(peek(), "by") || isWord(peek(), "without"))) {
      without = isWord(next(), "without");
      grouping = labelList();
    }
    if (args.isEmpty()) {
      throw error(at, "no arguments for aggregate expression provided");
    }
    int desired = op.paramType() != null ? 2 : 1;
    if (args.size() != desired) {
      throw error(at, "wrong number of arguments for aggregate expression provided, expected " + desired + ", got "
          + args.size());
    }
    Expr param = desired == 2 ? args.get(0) : null;
    Expr inner = args.get(desired - 1);
    if (inner.type() != ValueType.VECTOR) {
      throw error(inner, "expected type instant vector in aggregation expression, got " + inner.type().description());
    }
    if (param != null && param.type() != op.paramType()) {
      throw error(param, "expected type " + op.paramType().description() + " in aggregation parameter, got "
          + param.type().description());
    }
    return new Expr.Aggregate(op, inner, param, grouping, without);
  }

  private List<String> labelList() {
    expect(Kind.LPAREN, "grouping opts");
    List<String> out = new ArrayList<>();
    while (peek().kind() != Kind.RPAREN) {
      Token l = next();
      if (l.kind() != Kind.IDENT || !Labels.isValidLabelName(l.text())) {
        throw error(l, "unexpected " + l.describe() + " in grouping opts, expected label");
      }
      out.add(l.text());
      if (peek().kind() == Kind.COMMA) {
        next();
      } else if (peek().kind() != Kind.RPAREN) {
        throw error(peek(), "unexpected " + peek().describe() + " in grouping opts, expected \",\" or \")\"");
      }
    }
    next();
    return List.copyOf(out);
  }

  private Expr selector(String name, Token at) {
    List<Matcher> matchers = new ArrayList<>();
    if (name != null) {
      matchers.add(Matcher.eq(Labels.METRIC_NAME, name));
    }
    if (peek().kind() == Kind.LBRACE) {
      next();
      while (peek().kind() != Kind.RBRACE) {
        Token l = next();
        if (l.kind() != Kind.IDENT || !Labels.isValidLabelName(l.text())) {
          throw error(l, "unexpected " + l.describe() + " in label matching, expected label");
        }
        Token op = next();
        Matcher.Type type = switch (op.kind()) {
          case EQL -> Matcher.Type.EQ;
          case NEQ -> Matcher.Type.NE;
          case EQL_REGEX -> Matcher.Type.RE;
          case NEQ_REGEX -> Matcher.Type.NRE;
          default -> throw error(op, "unexpected " + op.describe() + " in label matching, expected label matching "
              + "operator");
        };
        Token v = next();
        if (v.kind() != Kind.STRING) {
          throw error(v, "unexpected " + v.describe() + " in label matching, expected string");
        }
        if (name != null && l.text().equals(Labels.METRIC_NAME)) {
          throw error(at, "metric name must not be set twice: \"" + name + "\" or \"" + v.text() + "\"");
        }
        try {
          matchers.add(Matcher.of(l.text(), type, v.text()));
        } catch (IllegalArgumentException e) {
          throw error(l, e.getMessage());
        }
        if (peek().kind() == Kind.COMMA) {
          next();
        } else if (peek().kind() != Kind.RBRACE) {
          throw error(peek(), "unexpected " + peek().describe() + " in label matching, expected \",\" or \"}\"");
        }
      }
      next();
    }
    boolean nonEmpty = false;
    for (Matcher m : matchers) {
      if (!m.matchesEmpty()) {
        nonEmpty = true;
        break;
      }
    }
    if (!nonEmpty) {
      throw error(at, "vector selector must contain at least one non-empty matcher");
    }
    return new Expr.VectorSelector(name, List.copyOf(matchers), 0, null);
  }
}
