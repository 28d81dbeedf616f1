package io.sluice.schema.protobuf;

import com.squareup.wire.schema.ProtoType;
import com.squareup.wire.schema.internal.parser.EnumConstantElement;
import com.squareup.wire.schema.internal.parser.EnumElement;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OneOfElement;
import com.squareup.wire.schema.internal.parser.OptionElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.TypeElement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One canonical text for equivalent files: comments dropped, imports and options sorted, fields and enum constants in
 * number order, type names fully qualified. The order of messages is kept, because serialised data names a message by
 * its index within the file.
 */
final class ProtoNormalizer {
  private ProtoNormalizer() {}

  static ProtoFileElement normalize(ProtoFileElement f, ProtoTypes types) {
    String pkg = f.getPackageName() == null ? "" : f.getPackageName();
    List<TypeElement> normalTypes = new ArrayList<>();
    for (TypeElement t : f.getTypes()) {
      normalTypes.add(type(t, pkg.isEmpty() ? t.getName() : pkg + "." + t.getName(), types));
    }
    return new ProtoFileElement(f.getLocation(), f.getPackageName(), f.getSyntax(), sorted(f.getImports()),
        sorted(f.getPublicImports()), sorted(f.getWeakImports()), normalTypes, f.getServices(),
        f.getExtendDeclarations(), options(f.getOptions()));
  }

  private static TypeElement type(TypeElement t, String fullName, ProtoTypes types) {
    List<TypeElement> nested = new ArrayList<>();
    for (TypeElement n : t.getNestedTypes()) {
      nested.add(type(n, fullName + "." + n.getName(), types));
    }
    if (t instanceof MessageElement m) {
      // Wire prints fields and oneofs in source order (by location): renumber the locations in canonical order.
      int[] line = {0};
      List<FieldElement> fields = m.getFields().stream().sorted(Comparator.comparingInt(FieldElement::getTag))
          .map(x -> field(x, fullName, types, ++line[0])).toList();
      List<OneOfElement> oneOfs = m.getOneOfs().stream()
          .sorted(Comparator.comparing(OneOfElement::getName))
          .map(o -> new OneOfElement(o.getName(), "", o.getFields().stream()
              .sorted(Comparator.comparingInt(FieldElement::getTag))
              .map(x -> field(x, fullName, types, ++line[0])).toList(), o.getGroups(), options(o.getOptions()),
              o.getLocation().at(++line[0], 1)))
          .toList();
      return new MessageElement(m.getLocation(), m.getName(), "", nested, options(m.getOptions()), m.getReserveds(),
          fields, oneOfs, m.getExtensions(), m.getGroups(), m.getExtendDeclarations());
    }
    if (t instanceof EnumElement e) {
      List<EnumConstantElement> constants = e.getConstants().stream()
          .map(c -> new EnumConstantElement(c.getLocation(), c.getName(), c.getTag(), "", options(c.getOptions())))
          .sorted(Comparator.comparingInt(EnumConstantElement::getTag)).toList();
      return new EnumElement(e.getLocation(), e.getName(), "", options(e.getOptions()), constants, e.getReserveds());
    }
    return t;
  }

  private static FieldElement field(FieldElement f, String scope, ProtoTypes types, int line) {
    return new FieldElement(f.getLocation().at(line, 1), f.getLabel(), qualified(f.getType(), scope, types), f.getName(),
        f.getDefaultValue(), f.getJsonName(), f.getTag(), "", options(f.getOptions()));
  }

  private static String qualified(String type, String scope, ProtoTypes types) {
    ProtoType p = ProtoType.get(type);
    if (p.isMap()) {
      return "map<" + qualified(p.getKeyType().toString(), scope, types) + ", "
          + qualified(p.getValueType().toString(), scope, types) + ">";
    }
    if (p.isScalar()) {
      return type;
    }
    return types.resolve(type, scope).map(d -> "." + d.fullName()).orElse(type);
  }

  private static List<OptionElement> options(List<OptionElement> options) {
    return options.stream().sorted(Comparator.comparing(OptionElement::getName)).toList();
  }

  private static List<String> sorted(List<String> values) {
    return values.stream().sorted().toList();
  }
}
