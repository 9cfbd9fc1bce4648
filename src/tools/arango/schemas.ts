import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { ARANGO_WRITE, defineArangoTool, type ArangoCall } from './shared.js';
import { READ_ONLY } from '../../tool/define.js';

/** Where JSON Schemas are kept (as the ArangoDB tool set always kept them): one document per schema, _key = its name. */
export const SCHEMA_COLLECTION = 'mcp_schemas';

async function compile(schema: Record<string, unknown>) {
  const { compileJsonSchema } = await import('../../proxy/calls/json-schema-engine.js');
  try {
    return compileJsonSchema(schema);
  } catch (error) {
    throw new ToolError('VALIDATION_ERROR', `Not a usable JSON Schema: ${(error as Error).message}`, { details: { schema } });
  }
}

async function storedSchema(call: ArangoCall, name: string): Promise<Record<string, unknown>> {
  const collections = await call.timed(call.db.listCollections(false));
  const doc = collections.some((c) => c.name === SCHEMA_COLLECTION)
    ? ((await call.timed(call.db.collection(SCHEMA_COLLECTION).document(name, { graceful: true }))) as { schema?: Record<string, unknown> } | null)
    : null;
  if (!doc?.schema) {
    throw new ToolError('ARANGO_ERROR', `No schema named "${name}" in ${SCHEMA_COLLECTION}.`, {
      details: { errorNum: 1202, http_code: 404, schema: name },
      hint: 'Store one with arango_create_schema.',
    });
  }
  return doc.schema;
}

export const arangoCreateSchema = defineArangoTool({
  name: 'arango_create_schema',
  command: {
    id: 'arango create-schema',
    args: ['name'],
    examples: [
      '<%= config.bin %> arango create-schema user --schema \'{"type":"object","required":["email"],"properties":{"email":{"type":"string"}}}\' --collection users',
    ],
  },
  title: 'Store a JSON Schema',
  description: `Store (or replace) a named JSON Schema in the ${SCHEMA_COLLECTION} collection (created when missing), optionally tied to a collection, for arango_validate_document. The schema is compiled first, so a broken one is refused.`,
  input: z.strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'schema names use letters, digits, _ and -')
      .describe('Schema name (its _key).'),
    schema: z.record(z.string(), z.unknown()).describe('The JSON Schema.'),
    collection: z.string().min(1).optional().describe('The collection whose documents it describes.'),
  }),
  annotations: { ...ARANGO_WRITE, idempotentHint: true },
  writes: true,
  async run(input, call) {
    await compile(input.schema);
    const collections = await call.timed(call.db.listCollections(false));
    if (!collections.some((c) => c.name === SCHEMA_COLLECTION)) await call.timed(call.db.createCollection(SCHEMA_COLLECTION));
    const doc = { _key: input.name, schema: input.schema, collection: input.collection ?? null, updated_at: call.ctx.now().toISOString() };
    await call.timed(call.db.collection(SCHEMA_COLLECTION).save(doc, { overwriteMode: 'replace' }));
    return { name: input.name, collection: input.collection ?? null, stored_in: SCHEMA_COLLECTION };
  },
  render: (r, ui) => `${ui.color.green('✓')} Stored schema ${r.name} in ${r.stored_in}`,
});

export const arangoValidateDocument = defineArangoTool({
  name: 'arango_validate_document',
  command: {
    id: 'arango validate-document',
    examples: [
      '<%= config.bin %> arango validate-document --schema-name user --document \'{"email":"a@b.c"}\'',
      '<%= config.bin %> arango validate-document --schema-name user --collection users --key 12345',
    ],
  },
  title: 'Validate a document against a JSON Schema',
  description:
    'Check a document (given, or read by collection and key) against a stored schema (schema_name) or one given inline (schema); list every violation with its path.',
  input: z.strictObject({
    schema_name: z.string().min(1).optional().describe(`Name of a schema in ${SCHEMA_COLLECTION}.`),
    schema: z.record(z.string(), z.unknown()).optional().describe('An inline JSON Schema instead.'),
    document: z.record(z.string(), z.unknown()).optional().describe('The document to check.'),
    collection: z.string().min(1).optional().describe('Read the document from this collection (with key).'),
    key: z.string().min(1).optional().describe('The _key of the document to read.'),
  }),
  annotations: READ_ONLY,
  writes: false,
  async run(input, call) {
    if ((input.schema_name === undefined) === (input.schema === undefined))
      throw new ToolError('VALIDATION_ERROR', 'Give exactly one of schema_name or schema.');
    if ((input.document === undefined) === (input.collection === undefined || input.key === undefined)) {
      throw new ToolError('VALIDATION_ERROR', 'Give either document, or collection and key.');
    }
    const schema = input.schema ?? (await storedSchema(call, input.schema_name!));
    const document = input.document ?? (await call.timed(call.db.collection(input.collection!).document(input.key!)));
    const validate = await compile(schema);
    const valid = validate(document);
    return {
      valid,
      errors: valid ? [] : (validate.errors ?? []).map((e) => ({ path: e.instancePath || '/', message: e.message ?? 'invalid', params: e.params })),
    };
  },
  render: (r, ui) => (r.valid ? `${ui.color.green('✓')} Valid` : [ui.color.red('Invalid:'), ...r.errors.map((e) => `  ${e.path}: ${e.message}`)].join('\n')),
});
