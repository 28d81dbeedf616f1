// Confluent's JavaScript serdes, unchanged, on the other side of Sluice's: run by ConfluentInteropTest.
//   node interop.js read  REGISTRY_URL FORMAT TOPIC HEX   -> prints the decoded value as one JSON line
//   node interop.js write REGISTRY_URL FORMAT TOPIC JSON [TYPE] -> prints the framed bytes as hex (schema: latest)
// FORMAT is avro, json or protobuf (TYPE: the message's full name; values print in Protobuf's JSON mapping). Writing uses the subject's latest version, as a producer pinned to a registered schema does.
const {
  SchemaRegistryClient, SerdeType, AvroSerializer, AvroDeserializer, JsonSerializer, JsonDeserializer,
  ProtobufSerializer, ProtobufDeserializer,
} = require('@confluentinc/schemaregistry');
const { createFileRegistry, fromBinary, fromJson, toJson } = require('@bufbuild/protobuf');
const { FileDescriptorProtoSchema } = require('@bufbuild/protobuf/wkt');

// A Protobuf message type from the registry's serialized descriptor of the subject's latest version: the JavaScript
// client has no .proto parser, so a producer brings descriptors; here they come from the registry itself.
async function protobufType(client, subject, typeName) {
  const latest = await client.getLatestSchemaMetadata(subject, 'serialized');
  const file = fromBinary(FileDescriptorProtoSchema, Buffer.from(latest.schema, 'base64'));
  const registry = createFileRegistry(file, () => undefined);
  return { registry, desc: registry.getMessage(typeName) };
}

async function main() {
  const [mode, url, format, topic, arg, typeName] = process.argv.slice(2);
  const client = new SchemaRegistryClient({ baseURLs: [url] });
  if (format === 'protobuf' && mode === 'read') {
    const d = new ProtobufDeserializer(client, SerdeType.VALUE, {});
    const value = await d.deserialize(topic, Buffer.from(arg, 'hex'));
    const { desc } = await protobufType(client, topic + '-value', value.$typeName);
    console.log(JSON.stringify(toJson(desc, value)));
  } else if (format === 'protobuf') {
    const { registry, desc } = await protobufType(client, topic + '-value', typeName);
    const s = new ProtobufSerializer(client, SerdeType.VALUE, { useLatestVersion: true, autoRegisterSchemas: false,
      registry });
    const bytes = await s.serialize(topic, fromJson(desc, JSON.parse(arg)));
    console.log(bytes.toString('hex'));
  } else if (mode === 'read') {
    const d = format === 'avro' ? new AvroDeserializer(client, SerdeType.VALUE, {})
      // strict: false, as for any Connect-written JSON Schema: Ajv's strict mode refuses the connect.* keywords that
      // Confluent's own JSON Schema converter writes too.
      : new JsonDeserializer(client, SerdeType.VALUE, { validate: true, strict: false });
    const value = await d.deserialize(topic, Buffer.from(arg, 'hex'));
    console.log(JSON.stringify(value, (k, v) => (typeof v === 'bigint' ? Number(v) : v)));
  } else if (mode === 'write') {
    const conf = { useLatestVersion: true, autoRegisterSchemas: false };
    const s = format === 'avro' ? new AvroSerializer(client, SerdeType.VALUE, conf)
      : new JsonSerializer(client, SerdeType.VALUE, { ...conf, validate: true });
    const bytes = await s.serialize(topic, JSON.parse(arg));
    console.log(bytes.toString('hex'));
  } else {
    throw new Error('mode must be read or write');
  }
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
