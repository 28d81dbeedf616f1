package io.sluice.schema.protobuf;

import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import java.util.List;

/**
 * A parsed {@code .proto} file with the types it can see. The canonical text is Wire's formatting of the file, which is
 * also what Confluent stores and returns.
 */
record ProtobufSchema(ProtoFileElement file, String canonical, List<SchemaReference> references, ProtoTypes types)
    implements ParsedSchema {
  ProtobufSchema {
    references = List.copyOf(references);
  }

  @Override
  public SchemaType type() {
    return SchemaType.PROTOBUF;
  }

  String packageName() {
    return file.getPackageName() == null ? "" : file.getPackageName();
  }

  @Override
  public ParsedSchema normalize() {
    ProtoFileElement normal = ProtoNormalizer.normalize(file, types);
    return new ProtobufSchema(normal, ProtobufSchemaProvider.print(normal), references, types);
  }
}
