package io.sluice.schema.protobuf;

import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.internal.parser.EnumConstantElement;
import com.squareup.wire.schema.internal.parser.EnumElement;
import com.squareup.wire.schema.internal.parser.ExtendElement;
import com.squareup.wire.schema.internal.parser.ExtensionsElement;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.GroupElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OneOfElement;
import com.squareup.wire.schema.internal.parser.OptionElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import com.squareup.wire.schema.internal.parser.RpcElement;
import com.squareup.wire.schema.internal.parser.ServiceElement;
import com.squareup.wire.schema.internal.parser.TypeElement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * String literals of {@code .proto} text, both ways. Wire's parser reads every escape protoc reads except
 * {@code \}{@code uXXXX} and {@code \}{@code UXXXXXXXX}, which it reads as the letter {@code u}; {@link #parse} decodes
 * those first, so a value means what protoc says it means. Wire's printer writes a string value between quotes as it
 * is, so a value holding a quote, a backslash or a newline prints as text that does not parse again (or parses to
 * another value); {@link #printable} hands it the values already escaped, as Confluent's registry escapes them.
 */
final class ProtoStrings {
  private ProtoStrings() {}

  /** A {@code .proto} file as Wire reads it, with Unicode escapes in its string literals read as protoc reads them. */
  static ProtoFileElement parse(String name, String text) {
    return ProtoParser.Companion.parse(Location.get(name), unicodeEscapesDecoded(text));
  }

  /**
   * A string value as it goes between the quotes of a literal: Confluent's escapes ({@code \a \b \f \n \r \t \v \\ \'
   * \"}), every other character as it is. Wire reads the result back to {@code value}.
   */
  static String escape(String value) {
    StringBuilder out = null;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      String e = switch (c) {
        case '\u0007' -> "\\a";
        case '\b' -> "\\b";
        case '\f' -> "\\f";
        case '\n' -> "\\n";
        case '\r' -> "\\r";
        case '\t' -> "\\t";
        case '\u000b' -> "\\v";
        case '\\' -> "\\\\";
        case '\'' -> "\\'";
        case '"' -> "\\\"";
        default -> null;
      };
      if (e != null && out == null) {
        out = new StringBuilder(value.length() + 8).append(value, 0, i);
      }
      if (out != null) {
        if (e != null) {
          out.append(e);
        } else {
          out.append(c);
        }
      }
    }
    return out == null ? value : out.toString();
  }

  /**
   * {@code text} with each {@code \}{@code uXXXX} and {@code \}{@code UXXXXXXXX} inside a string literal replaced by
   * its character (escaped again where the character needs it). Comments and everything outside literals stay as
   * they are; so does an escape protoc would refuse (too few digits, beyond U+10FFFF), which Wire then reads as before.
   */
  static String unicodeEscapesDecoded(String text) {
    if (text.indexOf('\\') < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    int n = text.length();
    int i = 0;
    while (i < n) {
      char c = text.charAt(i);
      if (c == '/' && i + 1 < n && text.charAt(i + 1) == '/') {
        int end = text.indexOf('\n', i);
        end = end < 0 ? n : end;
        out.append(text, i, end);
        i = end;
      } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
        int end = text.indexOf("*/", i + 2);
        end = end < 0 ? n : end + 2;
        out.append(text, i, end);
        i = end;
      } else if (c == '"' || c == '\'') {
        out.append(c);
        i++;
        while (i < n && text.charAt(i) != c) {
          char d = text.charAt(i);
          if (d != '\\' || i + 1 >= n) {
            out.append(d);
            i++;
            continue;
          }
          char kind = text.charAt(i + 1);
          int digits = kind == 'u' ? 4 : kind == 'U' ? 8 : 0;
          int codePoint = digits == 0 ? -1 : hex(text, i + 2, digits);
          if (codePoint >= 0 && Character.isValidCodePoint(codePoint)) {
            out.append(escape(new String(Character.toChars(codePoint))));
            i += 2 + digits;
          } else {
            out.append(d).append(kind); // any other escape, \\ and \" included, stays for Wire to read
            i += 2;
          }
        }
        if (i < n) {
          out.append(c);
          i++;
        }
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** The value of exactly {@code digits} hex digits at {@code from}, or -1. */
  private static int hex(String text, int from, int digits) {
    if (from + digits > text.length()) {
      return -1;
    }
    long value = 0;
    for (int i = from; i < from + digits; i++) {
      int d = Character.digit(text.charAt(i), 16);
      if (d < 0) {
        return -1;
      }
      value = value * 16 + d;
    }
    return value > Integer.MAX_VALUE ? -1 : (int) value;
  }

  /**
   * A copy of {@code file} for Wire's printer: every string it writes between quotes (option values at any depth,
   * field defaults, JSON names, imports) escaped. A {@code bytes} default, which Wire writes without quotes, becomes
   * a quoted option as protoc requires. Only for printing: the copy's values are the escaped texts.
   *
   * @throws IllegalArgumentException for an option whose value is a list outside an aggregate value, which .proto
   *     does not allow and Wire cannot print
   */
  static ProtoFileElement printable(ProtoFileElement f) {
    return new ProtoFileElement(f.getLocation(), f.getPackageName(), f.getSyntax(), strings(f.getImports()),
        strings(f.getPublicImports()), strings(f.getWeakImports()), types(f.getTypes()), services(f.getServices()),
        extend(f.getExtendDeclarations()), options(f.getOptions()));
  }

  private static List<TypeElement> types(List<TypeElement> types) {
    List<TypeElement> out = new ArrayList<>(types.size());
    for (TypeElement t : types) {
      if (t instanceof MessageElement m) {
        out.add(new MessageElement(m.getLocation(), m.getName(), m.getDocumentation(), types(m.getNestedTypes()),
            options(m.getOptions()), m.getReserveds(), fields(m.getFields()), oneOfs(m.getOneOfs()),
            extensions(m.getExtensions()), groups(m.getGroups()), extend(m.getExtendDeclarations())));
      } else if (t instanceof EnumElement e) {
        out.add(new EnumElement(e.getLocation(), e.getName(), e.getDocumentation(), options(e.getOptions()),
            e.getConstants().stream().map(c -> new EnumConstantElement(c.getLocation(), c.getName(), c.getTag(),
                c.getDocumentation(), options(c.getOptions()))).toList(), e.getReserveds()));
      } else {
        out.add(t);
      }
    }
    return out;
  }

  private static List<FieldElement> fields(List<FieldElement> fields) {
    List<FieldElement> out = new ArrayList<>(fields.size());
    for (FieldElement f : fields) {
      String def = f.getDefaultValue();
      List<OptionElement> options = options(f.getOptions());
      if (def != null && f.getType().equals("bytes")) {
        options = new ArrayList<>(options);
        options.add(OptionElement.Companion.create("default", OptionElement.Kind.STRING, escape(def), false));
        def = null;
      } else if (def != null && f.getType().equals("string")) {
        def = escape(def);
      }
      out.add(new FieldElement(f.getLocation(), f.getLabel(), f.getType(), f.getName(), def,
          f.getJsonName() == null ? null : escape(f.getJsonName()), f.getTag(), f.getDocumentation(), options));
    }
    return out;
  }

  private static List<OneOfElement> oneOfs(List<OneOfElement> oneOfs) {
    return oneOfs.stream().map(o -> new OneOfElement(o.getName(), o.getDocumentation(), fields(o.getFields()),
        groups(o.getGroups()), options(o.getOptions()), o.getLocation())).toList();
  }

  private static List<GroupElement> groups(List<GroupElement> groups) {
    return groups.stream().map(g -> new GroupElement(g.getLabel(), g.getLocation(), g.getName(), g.getTag(),
        g.getDocumentation(), fields(g.getFields()))).toList();
  }

  private static List<ExtensionsElement> extensions(List<ExtensionsElement> extensions) {
    return extensions.stream().map(x -> new ExtensionsElement(x.getLocation(), x.getDocumentation(), x.getValues(),
        options(x.getOptions()))).toList();
  }

  private static List<ExtendElement> extend(List<ExtendElement> extend) {
    return extend.stream().map(x -> new ExtendElement(x.getLocation(), x.getName(), x.getDocumentation(),
        fields(x.getFields()))).toList();
  }

  private static List<ServiceElement> services(List<ServiceElement> services) {
    return services.stream().map(s -> new ServiceElement(s.getLocation(), s.getName(), s.getDocumentation(),
        s.getRpcs().stream().map(r -> new RpcElement(r.getLocation(), r.getName(), r.getDocumentation(),
            r.getRequestType(), r.getResponseType(), r.getRequestStreaming(), r.getResponseStreaming(),
            options(r.getOptions()))).toList(), options(s.getOptions()))).toList();
  }

  private static List<OptionElement> options(List<OptionElement> options) {
    return options.stream().map(ProtoStrings::option).toList();
  }

  @SuppressWarnings("unchecked")
  private static OptionElement option(OptionElement o) {
    Object v = o.getValue();
    Object escaped = switch (o.getKind()) {
      case STRING -> escape(v.toString());
      case OPTION -> option((OptionElement) v);
      case MAP -> map((Map<String, ?>) v);
      case LIST -> {
        List<OptionElement> items = new ArrayList<>();
        for (Object item : (List<?>) v) {
          if (!(item instanceof OptionElement e)) {
            throw new IllegalArgumentException("option " + o.getName() + " has a list value, which .proto allows only"
                + " inside an aggregate value { ... }");
          }
          items.add(option(e));
        }
        yield items;
      }
      default -> v;
    };
    return new OptionElement(o.getName(), o.getKind(), escaped, o.isParenthesized());
  }

  private static Map<String, Object> map(Map<String, ?> map) {
    Map<String, Object> out = new LinkedHashMap<>();
    map.forEach((k, v) -> out.put(k, mapValue(v)));
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Object mapValue(Object v) {
    if (v instanceof String s) {
      return escape(s);
    }
    if (v instanceof Map<?, ?> m) {
      return map((Map<String, ?>) m);
    }
    if (v instanceof List<?> l) {
      return l.stream().map(ProtoStrings::mapValue).toList();
    }
    if (v instanceof OptionElement.OptionPrimitive p && p.getKind() == OptionElement.Kind.STRING) {
      return escape(p.getValue().toString());
    }
    return v;
  }

  private static List<String> strings(List<String> values) {
    return values.stream().map(ProtoStrings::escape).toList();
  }
}
