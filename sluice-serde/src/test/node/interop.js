// Confluent's JavaScript serdes, unchanged, on the other side of Sluice's: run by ConfluentInteropTest.
//   node interop.js read  REGISTRY_URL FORMAT TOPIC HEX   -> prints the decoded value as one JSON line
//   node interop.js write REGISTRY_URL FORMAT TOPIC JSON  -> prints the framed bytes as hex (schema: latest version)
// FORMAT is avro or json. Writing uses the subject's latest version, as a producer pinned to a registered schema does.
const {
  SchemaRegistryClient, SerdeType, AvroSerializer, AvroDeserializer, JsonSerializer, JsonDeserializer,
} = require('@confluentinc/schemaregistry');

async function main() {
  const [mode, url, format, topic, arg] = process.argv.slice(2);
  const client = new SchemaRegistryClient({ baseURLs: [url] });
  if (mode === 'read') {
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
