package io.sluice.template;

import io.sluice.template.Template.Action;
import io.sluice.template.Template.Branch;
import io.sluice.template.Template.Break;
import io.sluice.template.Template.Call;
import io.sluice.template.Template.Continue;
import io.sluice.template.Template.Dot;
import io.sluice.template.Template.Field;
import io.sluice.template.Template.Identifier;
import io.sluice.template.Template.Literal;
import io.sluice.template.Template.Node;
import io.sluice.template.Template.Operand;
import io.sluice.template.Template.Pipeline;
import io.sluice.template.Template.Sub;
import io.sluice.template.Template.TemplateException;
import io.sluice.template.Template.Text;
import io.sluice.template.Template.Variable;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Splits a template into text and actions, then parses each action's words into pipelines and blocks. */
final class TemplateParser {
  private final String name;
  private final String src;
  private final Set<String> functions;
  /** Variables in scope while parsing, as Go checks them at parse time. */
  private final Deque<Set<String>> vars = new java.util.ArrayDeque<>();
  /** {@code define}d and {@code block} bodies by name; a later definition replaces an earlier one, as in Go. */
  private final Map<String, List<Node>> defines = new HashMap<>();
  /** How many blocks enclose the current position: {@code define} is only allowed at the top. */
  private int depth;
  /** How many {@code range} bodies enclose the current position, as Go counts them for break and continue. */
  private int rangeDepth;
  private int pos;
  private int line = 1;

  TemplateParser(String name, String src, Set<String> functions) {
    this.name = name;
    this.src = src;
    this.functions = functions;
    Set<String> root = new HashSet<>();
    root.add("$");
    vars.push(root);
  }

  private TemplateException error(String msg) {
    return new TemplateException("template: " + name + ":" + line + ": " + msg);
  }

  Map<String, List<Node>> defines() {
    return defines;
  }

  List<Node> parse() {
    List<Node> out = new ArrayList<>();
    String end = parseList(out);
    if (end != null) {
      throw error("unexpected {{" + end + "}}");
    }
    return out;
  }

  /** Parses nodes until {{end}} or {{else ...}}; returns that keyword's action text, or null at the end of input. */
  private String parseList(List<Node> out) {
    while (pos < src.length()) {
      int open = src.indexOf("{{", pos);
      String text = open < 0 ? src.substring(pos) : src.substring(pos, open);
      boolean trimLeft = open >= 0 && src.startsWith("{{-", open) && open + 3 < src.length()
          && Character.isWhitespace(src.charAt(open + 3));
      if (trimLeft) {
        text = text.stripTrailing();
      }
      if (!text.isEmpty()) {
        out.add(new Text(text));
      }
      if (open < 0) {
        line += count(src.substring(pos));
        pos = src.length();
        return null;
      }
      line += count(src.substring(pos, open));
      int start = open + (trimLeft ? 3 : 2);
      int close = findClose(start);
      boolean trimRight = close - 1 >= start && src.charAt(close - 1) == '-' && close - 2 >= start
          && Character.isWhitespace(src.charAt(close - 2));
      String action = src.substring(start, trimRight ? close - 1 : close).strip();
      line += count(src.substring(open, close));
      pos = close + 2;
      if (trimRight) {
        while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
          if (src.charAt(pos) == '\n') {
            line++;
          }
          pos++;
        }
      }
      if (action.startsWith("/*")) {
        if (!action.endsWith("*/")) {
          throw error("unclosed comment");
        }
        continue;
      }
      List<String> words = lex(action);
      if (words.isEmpty()) {
        throw error("missing value for command");
      }
      String kw = words.get(0);
      switch (kw) {
        case "end" -> {
          return "end";
        }
        case "else" -> {
          return action;
        }
        case "if", "with", "range" -> out.add(block(kw, words.subList(1, words.size())));
        case "define" -> define(words);
        case "template" -> out.add(call(words));
        case "block" -> {
          Call c = call(words);
          defines.put(c.name(), body("block"));
          out.add(c);
        }
        case "break", "continue" -> out.add(loopControl(kw, words));
        default -> out.add(new Action(pipeline(words, true)));
      }
    }
    return null;
  }

  /**
   * {@code {{break}}} and {@code {{continue}}} (Go 1.18): only in a range's body (its {@code else} is not), nothing
   * after the keyword; where the template has a function of that name, the word calls it instead, as in Go.
   */
  private Node loopControl(String kw, List<String> words) {
    if (functions.contains(kw)) {
      return new Action(pipeline(words, true));
    }
    if (words.size() > 1) {
      throw error("unexpected " + goItem(words.get(1)) + " in {{" + kw + "}}");
    }
    if (rangeDepth == 0) {
      throw error("{{" + kw + "}} outside {{range}}");
    }
    return kw.equals("break") ? new Break() : new Continue();
  }

  /** A word as Go's template lexer prints an item in errors: keywords as {@code <if>}, the rest quoted. */
  private static String goItem(String word) {
    if (Set.of("block", "break", "continue", "define", "else", "end", "if", "range", "nil", "template", "with")
        .contains(word)) {
      return "<" + word + ">";
    }
    String shown = word.codePointCount(0, word.length()) > 10
        ? word.substring(0, word.offsetByCodePoints(0, 10)) : word;
    return "\"" + shown.replace("\\", "\\\\").replace("\"", "\\\"") + "\"" + (shown.equals(word) ? "" : "...");
  }

  /** {@code {{ define "name" }}...{{ end }}}: a body of its own, where only {@code $} (its data) is defined. */
  private void define(List<String> words) {
    if (depth > 0) {
      throw error("unexpected <define> in command");
    }
    if (words.size() != 2) {
      throw error("define: expected one template name");
    }
    String name = templateName(words.get(1), "define");
    defines.put(name, body("define"));
  }

  /** {@code {{ template "name" pipeline }}} and the head of {@code {{ block "name" pipeline }}}. */
  private Call call(List<String> words) {
    if (words.size() < 2) {
      throw error("missing name in " + words.get(0));
    }
    String name = templateName(words.get(1), words.get(0));
    Pipeline p = words.size() > 2 ? pipeline(words.subList(2, words.size()), false) : null;
    return new Call(name, p);
  }

  private String templateName(String word, String action) {
    if (word.startsWith("`")) {
      return word.substring(1, word.length() - 1);
    }
    if (word.startsWith("\"")) {
      return unquote(word);
    }
    throw error("unexpected \"" + word + "\" in " + action + " clause");
  }

  /** A define's or block's body up to its {@code end}, with a fresh set of variables. */
  private List<Node> body(String kind) {
    Deque<Set<String>> saved = new java.util.ArrayDeque<>(vars);
    vars.clear();
    Set<String> root = new HashSet<>();
    root.add("$");
    vars.push(root);
    depth++;
    // A body is a template of its own: a range around its definition does not enclose it.
    int savedRangeDepth = rangeDepth;
    rangeDepth = 0;
    try {
      List<Node> body = new ArrayList<>();
      String end = parseList(body);
      if (!"end".equals(end)) {
        throw error(end == null ? "unexpected EOF" : "unexpected {{" + end + "}} in " + kind);
      }
      return body;
    } finally {
      rangeDepth = savedRangeDepth;
      depth--;
      vars.clear();
      saved.descendingIterator().forEachRemaining(vars::push);
    }
  }

  /** {@code if}, {@code with} or {@code range} up to its {@code end}; variables it declares stay inside. */
  private Node block(String kind, List<String> words) {
    vars.push(new HashSet<>());
    depth++;
    try {
      Pipeline p = pipeline(words, kind.equals("range"));
      List<Node> body = new ArrayList<>();
      boolean range = kind.equals("range");
      if (range) {
        rangeDepth++;
      }
      String end;
      try {
        end = parseList(body);
      } finally {
        if (range) {
          rangeDepth--;
        }
      }
      List<Node> elseNodes = new ArrayList<>();
      if (end == null) {
        throw error("unexpected EOF");
      }
      if (!end.equals("end")) {
        List<String> w = lex(end);
        if (w.size() > 1 && (w.get(1).equals("if") || w.get(1).equals("with"))) {
          // {{else if x}} is {{else}}{{if x}}...{{end}} sharing the outer {{end}}.
          elseNodes.add(block(w.get(1), w.subList(2, w.size())));
        } else {
          String e2 = parseList(elseNodes);
          if (!"end".equals(e2)) {
            throw error("expected end; found " + (e2 == null ? "EOF" : e2));
          }
        }
      }
      return new Branch(kind, p, body, elseNodes);
    } finally {
      depth--;
      vars.pop();
    }
  }

  private int findClose(int from) {
    int i = from;
    char quote = 0;
    while (i < src.length()) {
      char c = src.charAt(i);
      if (quote != 0) {
        if (c == '\\' && quote != '`') {
          i += 2;
          continue;
        }
        if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '`' || c == '\'') {
        quote = c;
      } else if (src.startsWith("}}", i)) {
        return i;
      }
      i++;
    }
    throw error("unclosed action");
  }

  private static int count(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == '\n') {
        n++;
      }
    }
    return n;
  }

  // ---- words of one action

  private List<String> lex(String a) {
    List<String> out = new ArrayList<>();
    int i = 0;
    while (i < a.length()) {
      char c = a.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '"' || c == '`' || c == '\'') {
        int j = i + 1;
        while (j < a.length() && a.charAt(j) != c) {
          j += a.charAt(j) == '\\' && c != '`' ? 2 : 1;
        }
        if (j >= a.length()) {
          throw error("unterminated quoted string");
        }
        out.add(a.substring(i, j + 1));
        i = j + 1;
      } else if (c == '(' || c == ')' || c == '|' || c == ',') {
        out.add(String.valueOf(c));
        i++;
      } else if (c == ':' && i + 1 < a.length() && a.charAt(i + 1) == '=') {
        out.add(":=");
        i += 2;
      } else if (c == '=') {
        out.add("=");
        i++;
      } else {
        int j = i;
        while (j < a.length() && !Character.isWhitespace(a.charAt(j)) && "()|,=\"`'".indexOf(a.charAt(j)) < 0
            && !(a.charAt(j) == ':' && j + 1 < a.length() && a.charAt(j + 1) == '=')) {
          j++;
        }
        // A field chain may follow a closing parenthesis: (x).Field
        out.add(a.substring(i, j));
        i = j;
      }
    }
    return out;
  }

  // ---- pipelines

  private int at;
  private List<String> words;

  private Pipeline pipeline(List<String> w, boolean allowDecl) {
    List<String> savedWords = words;
    int savedAt = at;
    words = w;
    at = 0;
    try {
      Pipeline p = pipelineHere(allowDecl);
      if (at < words.size()) {
        throw error("unexpected \"" + words.get(at) + "\" in command");
      }
      return p;
    } finally {
      words = savedWords;
      at = savedAt;
    }
  }

  private Pipeline pipelineHere(boolean allowDecl) {
    List<String> decl = new ArrayList<>();
    boolean assign = false;
    // $x := ..., $x = ..., $i, $e := ...
    int save = at;
    if (at < words.size() && words.get(at).startsWith("$") && !words.get(at).contains(".")) {
      List<String> names = new ArrayList<>();
      names.add(words.get(at));
      int k = at + 1;
      if (k < words.size() && words.get(k).equals(",") && k + 1 < words.size()) {
        names.add(words.get(k + 1));
        k += 2;
      }
      if (k < words.size() && (words.get(k).equals(":=") || words.get(k).equals("="))) {
        assign = words.get(k).equals("=");
        if (names.size() > 1 && !allowDecl) {
          throw error("too many declarations in command");
        }
        decl.addAll(names);
        at = k + 1;
      } else {
        at = save;
      }
    }
    List<List<Operand>> cmds = new ArrayList<>();
    while (true) {
      List<Operand> cmd = new ArrayList<>();
      while (at < words.size() && !words.get(at).equals("|") && !words.get(at).equals(")")) {
        cmd.add(operand());
      }
      if (cmd.isEmpty()) {
        throw error("missing value for command");
      }
      cmds.add(cmd);
      if (at < words.size() && words.get(at).equals("|")) {
        at++;
        continue;
      }
      break;
    }
    for (String d : decl) {
      if (assign) {
        checkVar(d);
      } else {
        vars.peek().add(d);
      }
    }
    return new Pipeline(decl, assign, cmds);
  }

  private void checkVar(String v) {
    for (Set<String> s : vars) {
      if (s.contains(v)) {
        return;
      }
    }
    throw error("undefined variable \"" + v + "\"");
  }

  private Operand operand() {
    String w = words.get(at++);
    if (w.equals("(")) {
      Pipeline p = pipelineHere(false);
      if (at >= words.size() || !words.get(at).equals(")")) {
        throw error("unclosed left paren");
      }
      at++;
      List<String> chain = new ArrayList<>();
      if (at < words.size() && words.get(at).startsWith(".") && words.get(at).length() > 1) {
        chain = chain(words.get(at++).substring(1));
      }
      return new Sub(p, chain);
    }
    char c = w.charAt(0);
    if (c == '"') {
      return new Literal(unquote(w));
    }
    if (c == '`') {
      return new Literal(w.substring(1, w.length() - 1));
    }
    if (c == '\'') {
      String s = w.length() < 2 ? "" : unquote("\"" + w.substring(1, w.length() - 1) + "\"");
      if (s.codePointCount(0, s.length()) != 1) {
        throw error("malformed character constant: " + w);
      }
      return new Literal((long) s.codePointAt(0));
    }
    if (w.equals(".")) {
      return new Dot();
    }
    if (c == '.') {
      return new Field(chain(w.substring(1)));
    }
    if (c == '$') {
      int dot = w.indexOf('.');
      String v = dot < 0 ? w : w.substring(0, dot);
      checkVar(v);
      return new Variable(v, dot < 0 ? List.of() : chain(w.substring(dot + 1)));
    }
    if (w.equals("true") || w.equals("false")) {
      return new Literal(Boolean.parseBoolean(w));
    }
    if (w.equals("nil")) {
      return new Literal(null);
    }
    if (Character.isDigit(c) || c == '-' || c == '+' || c == '.') {
      return new Literal(number(w));
    }
    if (Character.isLetter(c) || c == '_') {
      if (!functions.contains(w)) {
        throw error("function \"" + w + "\" not defined");
      }
      return new Identifier(w);
    }
    throw error("unexpected \"" + w + "\" in operand");
  }

  private List<String> chain(String s) {
    List<String> out = new ArrayList<>();
    for (String p : s.split("\\.", -1)) {
      if (p.isEmpty()) {
        throw error("bad field chain ." + s);
      }
      out.add(p);
    }
    return out;
  }

  private Object number(String w) {
    try {
      if (w.matches("[+-]?\\d+")) {
        return Long.parseLong(w);
      }
      if (w.matches("[+-]?0[xX][0-9a-fA-F]+")) {
        return Long.decode(w);
      }
      return Double.parseDouble(w);
    } catch (NumberFormatException e) {
      throw error("bad number syntax: \"" + w + "\"");
    }
  }

  private String unquote(String w) {
    try {
      return unquoted(w);
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      // A hex escape without its digits, which Go's strconv.Unquote refuses too.
      throw error("invalid syntax in string " + w);
    }
  }

  private String unquoted(String w) {
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i < w.length() - 1; i++) {
      char c = w.charAt(i);
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      char n = w.charAt(++i);
      switch (n) {
        case 'n' -> sb.append('\n');
        case 't' -> sb.append('\t');
        case 'r' -> sb.append('\r');
        case '\\' -> sb.append('\\');
        case '"' -> sb.append('"');
        case '\'' -> sb.append('\'');
        case 'x' -> {
          sb.append((char) Integer.parseInt(w.substring(i + 1, i + 3), 16));
          i += 2;
        }
        case 'u' -> {
          sb.append((char) Integer.parseInt(w.substring(i + 1, i + 5), 16));
          i += 4;
        }
        default -> throw error("invalid syntax in string " + w);
      }
    }
    return sb.toString();
  }
}
