// Drives the real @kafkajs/confluent-schema-registry client against the registry at argv[2].
// Prints one JSON line with what it saw; exits non-zero on any failure.
const { SchemaRegistry, SchemaType } = require('@kafkajs/confluent-schema-registry');

async function main() {
  const host = process.argv[2];
  const subject = process.argv[3];
  const registry = new SchemaRegistry({ host });
  const v1 = {
    type: 'record', name: 'Order', namespace: 'sluice.test',
    fields: [{ name: 'id', type: 'long' }, { name: 'item', type: 'string' }],
  };
  const v2 = {
    ...v1,
    fields: [...v1.fields, { name: 'qty', type: 'int', default: 1 }],
  };
  const { id: id1 } = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(v1) }, { subject });
  const again = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(v1) }, { subject });
  const encoded = await registry.encode(id1, { id: 7, item: 'tea' });
  const decoded = await registry.decode(encoded);
  const { id: id2 } = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(v2) }, { subject });
  const latest = await registry.getLatestSchemaId(subject);
  const byVersion = await registry.getRegistryId(subject, 1);
  const fetched = await registry.getSchema(id2);
  let incompatible = null;
  try {
    const bad = { ...v1, fields: [...v1.fields, { name: 'required', type: 'string' }] };
    await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(bad) }, { subject });
  } catch (e) {
    incompatible = e.name + ': ' + e.message;
  }
  console.log(JSON.stringify({
    id1, again: again.id, id2, latest, byVersion,
    decoded: { id: Number(decoded.id), item: decoded.item },
    fetchedName: fetched.name, incompatible,
  }));
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
