import * as z from 'zod';
import { ARANGO_DESTRUCTIVE, ARANGO_WRITE, defineArangoTool } from './shared.js';
import { READ_ONLY } from '../../tool/define.js';

export const arangoListIndexes = defineArangoTool({
  name: 'arango_list_indexes',
  command: { id: 'arango indexes', args: ['collection'], examples: ['<%= config.bin %> arango indexes users'] },
  title: 'List the indexes of a collection',
  description: "List a collection's indexes: id, name, type, fields, unique and sparse (the primary index always; edge collections also have an edge index).",
  input: z.strictObject({ collection: z.string().min(1).describe('Collection name.') }),
  annotations: READ_ONLY,
  writes: false,
  async run(input, call) {
    const indexes = await call.timed(call.db.collection(input.collection).indexes());
    return {
      collection: input.collection,
      indexes: indexes.map((i) => {
        const index = i as unknown as Record<string, unknown>;
        return { ...described(index), ...(index.expireAfter !== undefined ? { expireAfter: index.expireAfter } : {}) };
      }),
    };
  },
  render: (r, ui) =>
    ui.table(
      r.indexes.map((i) => ({ ...i, fields: (i.fields as string[]).join(', ') })),
      ['id', 'name', 'type', 'fields', 'unique', 'sparse'],
    ),
});

export const arangoCreateIndex = defineArangoTool({
  name: 'arango_create_index',
  command: {
    id: 'arango create-index',
    args: ['collection'],
    examples: [
      '<%= config.bin %> arango create-index users --fields email --unique',
      '<%= config.bin %> arango create-index sessions --type ttl --fields createdAt --expire-after 3600',
      '<%= config.bin %> arango create-index places --type geo --fields location',
    ],
  },
  title: 'Create an index',
  description:
    'Create an index on a collection: persistent (unique, sparse), ttl (expire_after seconds), geo, fulltext or inverted where the server supports them. Creating an index that exists returns it (created: false).',
  input: z.strictObject({
    collection: z.string().min(1).describe('Collection name.'),
    type: z.enum(['persistent', 'ttl', 'geo', 'fulltext', 'inverted']).default('persistent').describe('Index type.'),
    fields: z.array(z.string().min(1)).min(1).describe('Attributes to index (one for ttl and fulltext).'),
    unique: z.boolean().default(false).describe('Persistent only: no two documents may share the values.'),
    sparse: z.boolean().default(false).describe('Persistent only: leave out documents missing the attributes.'),
    name: z.string().min(1).optional().describe('Index name.'),
    expire_after: z.int().min(0).optional().describe('ttl only: seconds after the indexed time a document is removed.'),
    min_length: z.int().min(1).optional().describe('fulltext only: shortest word indexed.'),
  }),
  annotations: ARANGO_WRITE,
  writes: true,
  async run(input, call) {
    const { ToolError } = await import('../../core/errors.js');
    if (input.type === 'ttl' && input.expire_after === undefined) throw new ToolError('VALIDATION_ERROR', 'A ttl index needs expire_after (seconds).');
    if ((input.type === 'ttl' || input.type === 'fulltext') && input.fields.length !== 1)
      throw new ToolError('VALIDATION_ERROR', `A ${input.type} index takes exactly one field.`);
    const options: Record<string, unknown> = { type: input.type, fields: input.fields, ...(input.name ? { name: input.name } : {}) };
    if (input.type === 'persistent') Object.assign(options, { unique: input.unique, sparse: input.sparse });
    if (input.type === 'ttl') options.expireAfter = input.expire_after;
    if (input.type === 'fulltext' && input.min_length !== undefined) options.minLength = input.min_length;
    const index = (await call.timed(call.db.collection(input.collection).ensureIndex(options as never))) as unknown as Record<string, unknown>;
    return { ...described(index), created: index.isNewlyCreated === true };
  },
  render: (r, ui) => `${ui.color.green('✓')} ${r.created ? 'Created' : 'Already there:'} ${r.type} index ${r.name} on ${(r.fields as string[]).join(', ')}`,
});

export const arangoDeleteIndex = defineArangoTool({
  name: 'arango_delete_index',
  command: {
    id: 'arango delete-index',
    args: ['collection', 'index'],
    examples: ['<%= config.bin %> arango delete-index users idx_1234', '<%= config.bin %> arango delete-index users users/1234'],
  },
  title: 'Delete an index',
  description: 'Delete an index of a collection by id ("users/1234" or "1234") or by name. The primary and edge indexes cannot be deleted.',
  input: z.strictObject({ collection: z.string().min(1).describe('Collection name.'), index: z.string().min(1).describe('Index id or name.') }),
  annotations: ARANGO_DESTRUCTIVE,
  writes: true,
  async run(input, call) {
    const coll = call.db.collection(input.collection);
    const indexes = (await call.timed(coll.indexes())) as unknown as { id: string; name: string }[];
    const found = indexes.find((i) => i.id === input.index || i.name === input.index || i.id === `${input.collection}/${input.index}`);
    const { ToolError } = await import('../../core/errors.js');
    if (!found) {
      throw new ToolError('ARANGO_ERROR', `index not found: ${input.index}`, {
        details: { errorNum: 1212, http_code: 404, indexes: indexes.map((i) => i.name) },
        hint: `Indexes of ${input.collection}: ${indexes.map((i) => i.name).join(', ')}.`,
      });
    }
    await call.timed(coll.dropIndex(found.id));
    return { collection: input.collection, id: found.id, name: found.name, deleted: true };
  },
  render: (r, ui) => `${ui.color.green('✓')} Deleted index ${r.name} (${r.id})`,
});

/** An index as the tools show it, whichever call returned it. */
function described(index: Record<string, unknown>) {
  return { id: index.id, name: index.name, type: index.type, fields: index.fields, unique: index.unique ?? false, sparse: index.sparse ?? false };
}
