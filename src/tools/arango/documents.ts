import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { ARANGO_DESTRUCTIVE, ARANGO_WRITE, defineArangoTool, queryAll, type ArangoCall } from './shared.js';
import { READ_ONLY } from '../../tool/define.js';

const collection = z.string().min(1).describe('Collection name.');
const documentObject = z.record(z.string(), z.unknown());
const onError = z
  .enum(['stop', 'continue', 'ignore'])
  .default('stop')
  .describe('On a failed item: stop (no further batches), continue (report every failure), ignore (count failures only).');
const batchSize = z.int().min(1).max(10000).default(1000).describe('Documents per request.');

export const arangoInsert = defineArangoTool({
  name: 'arango_insert',
  command: { id: 'arango insert', args: ['collection'], examples: ['<%= config.bin %> arango insert users --document \'{"name":"Ada","age":36}\''] },
  title: 'Insert a document',
  description:
    'Insert one document into a collection and return its _key, _id and _rev (and the stored document). Give _key to choose the key; edges need _from and _to.',
  input: z.strictObject({ collection, document: documentObject.describe('The document (a JSON object).') }),
  annotations: ARANGO_WRITE,
  writes: true,
  async run(input, call) {
    const meta = await call.timed(call.db.collection(input.collection).save(input.document, { returnNew: true }));
    return { _key: meta._key, _id: meta._id, _rev: meta._rev, new: meta.new };
  },
  render: (r, ui) => `${ui.color.green('✓')} Inserted ${r._id}`,
});

export const arangoUpdate = defineArangoTool({
  name: 'arango_update',
  command: { id: 'arango update', args: ['collection', 'key'], examples: ['<%= config.bin %> arango update users 12345 --update \'{"age":37}\''] },
  title: 'Update a document',
  description:
    'Merge changes into one document (attributes not given stay; null removes an attribute when keep_null is false) and return the updated document.',
  input: z.strictObject({
    collection,
    key: z.string().min(1).describe("The document's _key."),
    update: documentObject.describe('Attributes to change.'),
    keep_null: z.boolean().default(true).describe('Store null values (false: null removes the attribute).'),
  }),
  annotations: ARANGO_DESTRUCTIVE,
  writes: true,
  async run(input, call) {
    const meta = await call.timed(call.db.collection(input.collection).update(input.key, input.update, { returnNew: true, keepNull: input.keep_null }));
    return { _key: meta._key, _id: meta._id, _rev: meta._rev, new: meta.new };
  },
  render: (r, ui) => `${ui.color.green('✓')} Updated ${r._id}`,
});

export const arangoRemove = defineArangoTool({
  name: 'arango_remove',
  command: { id: 'arango remove', args: ['collection', 'key'], examples: ['<%= config.bin %> arango remove users 12345'] },
  title: 'Remove a document',
  description: 'Remove one document by _key and return what it held.',
  input: z.strictObject({ collection, key: z.string().min(1).describe("The document's _key.") }),
  annotations: ARANGO_DESTRUCTIVE,
  writes: true,
  async run(input, call) {
    const meta = await call.timed(call.db.collection(input.collection).remove(input.key, { returnOld: true }));
    return { _key: meta._key, _id: meta._id, removed: true, old: meta.old };
  },
  render: (r, ui) => `${ui.color.green('✓')} Removed ${r._id}`,
});

interface ItemReport {
  index: number;
  _key?: string;
  error?: { errorNum: number; message: string };
}

/** Bulk writes in batches; `write` returns per-item results, errors in place (arangojs saveAll/updateAll). */
async function inBatches(
  items: readonly Record<string, unknown>[],
  size: number,
  mode: 'stop' | 'continue' | 'ignore',
  write: (batch: Record<string, unknown>[]) => Promise<({ _key?: string } | { error: true; errorNum: number; errorMessage: string })[]>,
) {
  const failures: ItemReport[] = [];
  let succeeded = 0;
  let failed = 0;
  let processed = 0;
  let stopped = false;
  for (let start = 0; start < items.length; start += size) {
    const results = await write(items.slice(start, start + size));
    results.forEach((r, i) => {
      if ('error' in r && r.error) {
        failed++;
        if (mode !== 'ignore') failures.push({ index: start + i, error: { errorNum: r.errorNum, message: r.errorMessage } });
      } else succeeded++;
    });
    processed = Math.min(items.length, start + size);
    if (failed > 0 && mode === 'stop') {
      stopped = processed < items.length;
      break;
    }
  }
  return { total: items.length, processed, succeeded, failed, stopped, failures: failures.slice(0, 1000), failures_truncated: failures.length > 1000 };
}

export const arangoBulkInsert = defineArangoTool({
  name: 'arango_bulk_insert',
  command: {
    id: 'arango bulk-insert',
    args: ['collection'],
    examples: ['<%= config.bin %> arango bulk-insert users --documents "$(cat users.json)" --batch-size 500 --on-error continue'],
  },
  title: 'Insert many documents',
  description:
    'Insert an array of documents in batches, reporting how many succeeded and which items failed (index and error). on_error decides whether a failing batch stops the run.',
  input: z.strictObject({ collection, documents: z.array(documentObject).min(1).describe('The documents.'), batch_size: batchSize, on_error: onError }),
  annotations: ARANGO_WRITE,
  writes: true,
  async run(input, call) {
    const coll = call.db.collection(input.collection);
    await call.timed(coll.get()); // a missing collection is one ARANGO_ERROR, not one per document
    return inBatches(input.documents, input.batch_size, input.on_error, (batch) => call.timed(coll.saveAll(batch)) as never);
  },
  render: (r, ui) =>
    `${ui.color.green('✓')} Inserted ${r.succeeded} of ${r.total}${r.failed ? ui.color.yellow(`; ${r.failed} failed${r.stopped ? ' (stopped)' : ''}`) : ''}`,
});

export const arangoBulkUpdate = defineArangoTool({
  name: 'arango_bulk_update',
  command: {
    id: 'arango bulk-update',
    args: ['collection'],
    examples: ['<%= config.bin %> arango bulk-update users --updates \'[{"_key":"1","active":false}]\''],
  },
  title: 'Update many documents',
  description: 'Merge changes into many documents in batches; each item needs _key. Reports successes and per-item failures like arango_bulk_insert.',
  input: z.strictObject({
    collection,
    updates: z
      .array(z.looseObject({ _key: z.string().min(1) }))
      .min(1)
      .describe('Objects with _key and the attributes to change.'),
    batch_size: batchSize,
    on_error: onError,
  }),
  annotations: ARANGO_DESTRUCTIVE,
  writes: true,
  async run(input, call) {
    const coll = call.db.collection(input.collection);
    await call.timed(coll.get());
    return inBatches(input.updates, input.batch_size, input.on_error, (batch) => call.timed(coll.updateAll(batch as never)) as never);
  },
  render: (r, ui) =>
    `${ui.color.green('✓')} Updated ${r.succeeded} of ${r.total}${r.failed ? ui.color.yellow(`; ${r.failed} failed${r.stopped ? ' (stopped)' : ''}`) : ''}`,
});

/** Document ids a value refers to: an "coll/key" string, or an array of them. */
function referencesIn(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is string => typeof v === 'string' && /^[^/]+\/[^/]+$/.test(v));
}

async function missingReferences(call: ArangoCall, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  return new Set(await queryAll<string>(call, 'FOR id IN @ids LET d = DOCUMENT(id) FILTER d == null RETURN id', { ids: [...new Set(ids)] }));
}

export const arangoValidateReferences = defineArangoTool({
  name: 'arango_validate_references',
  command: {
    id: 'arango validate-references',
    args: ['collection'],
    examples: ['<%= config.bin %> arango validate-references orders --reference-fields customer_id --reference-fields product_ids'],
  },
  title: 'Find references to missing documents',
  description:
    'Check that the reference fields of every document (an _id such as "users/123", or an array of them) point to documents that exist; list the broken ones.',
  input: z.strictObject({
    collection,
    reference_fields: z.array(z.string().min(1)).min(1).describe('Attributes holding document _ids.'),
    limit: z.int().min(1).max(10000).default(100).describe('Most broken references to list.'),
  }),
  annotations: READ_ONLY,
  writes: false,
  async run(input, call) {
    const docs = await queryAll<Record<string, unknown>>(call, 'FOR d IN @@c RETURN KEEP(d, APPEND(["_key"], @fields))', {
      '@c': input.collection,
      fields: input.reference_fields,
    });
    const ids = docs.flatMap((d) => input.reference_fields.flatMap((f) => referencesIn(d[f])));
    const missing = await missingReferences(call, ids);
    const invalid: { _key: string; field: string; reference: string }[] = [];
    for (const d of docs)
      for (const field of input.reference_fields)
        for (const id of referencesIn(d[field])) if (missing.has(id)) invalid.push({ _key: String(d._key), field, reference: id });
    return {
      collection: input.collection,
      documents: docs.length,
      references: ids.length,
      valid: invalid.length === 0,
      invalid_count: invalid.length,
      invalid: invalid.slice(0, input.limit),
    };
  },
});

export const arangoInsertWithValidation = defineArangoTool({
  name: 'arango_insert_with_validation',
  command: {
    id: 'arango insert-validated',
    args: ['collection'],
    examples: ['<%= config.bin %> arango insert-validated orders --document \'{"customer_id":"users/1"}\' --reference-fields customer_id'],
  },
  title: 'Insert a document after checking its references',
  description:
    'Insert a document only if every reference field points to an existing document; otherwise nothing is written and the missing references are listed.',
  input: z.strictObject({
    collection,
    document: documentObject.describe('The document.'),
    reference_fields: z.array(z.string().min(1)).min(1).describe('Attributes holding document _ids.'),
  }),
  annotations: ARANGO_WRITE,
  writes: true,
  async run(input, call) {
    const ids = input.reference_fields.flatMap((f) => referencesIn(input.document[f]));
    const missing = await missingReferences(call, ids);
    if (missing.size) {
      throw new ToolError('VALIDATION_ERROR', `References to missing documents: ${[...missing].join(', ')}`, {
        details: {
          missing: input.reference_fields.flatMap((field) =>
            referencesIn(input.document[field])
              .filter((id) => missing.has(id))
              .map((reference) => ({ field, reference })),
          ),
        },
        hint: 'Insert the referenced documents first, or correct the _ids.',
      });
    }
    const meta = await call.timed(call.db.collection(input.collection).save(input.document, { returnNew: true }));
    return { _key: meta._key, _id: meta._id, _rev: meta._rev, new: meta.new, references_checked: ids.length };
  },
});
