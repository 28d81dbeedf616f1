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
  // Protobuf: the client parses the text the registry returns with protobufjs.
  const proto = 'syntax = "proto3";\npackage sluice.test;\nmessage Line {\n  string sku = 1;\n  int32 qty = 2;\n}\n';
  const { id: protoId } = await registry.register({ type: SchemaType.PROTOBUF, schema: proto },
    { subject: subject + '-proto' });
  const protoDecoded = await registry.decode(await registry.encode(protoId, { sku: 'A-1', qty: 3 }));
  let protoIncompatible = null;
  try {
    await registry.register({ type: SchemaType.PROTOBUF, schema: proto.replace('int32 qty', 'string qty') },
      { subject: subject + '-proto' });
  } catch (e) {
    protoIncompatible = e.name + ': ' + e.message;
  }
  // JSON Schema: the client validates with ajv against the schema the registry returns.
  const json = { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } },
    required: ['sku'], additionalProperties: false };
  const { id: jsonId } = await registry.register({ type: SchemaType.JSON, schema: JSON.stringify(json) },
    { subject: subject + '-json' });
  const jsonDecoded = await registry.decode(await registry.encode(jsonId, { sku: 'B-2', qty: 4 }));
  let jsonInvalid = null;
  try {
    await registry.encode(jsonId, { qty: 'many' });
  } catch (e) {
    jsonInvalid = e.name;
  }
  console.log(JSON.stringify({
    id1, again: again.id, id2, latest, byVersion,
    decoded: { id: Number(decoded.id), item: decoded.item },
    fetchedName: fetched.name, incompatible,
    protoId, protoDecoded: { sku: protoDecoded.sku, qty: protoDecoded.qty }, protoIncompatible,
    jsonId, jsonDecoded, jsonInvalid,
  }));
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
