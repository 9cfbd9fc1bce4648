import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { redact } from '../../core/redact.js';
import { ARANGO_WRITE, backupFolder, defineArangoTool } from './shared.js';
import { READ_ONLY } from '../../tool/define.js';

const COLLECTION_TYPES = { 2: 'document', 3: 'edge' } as const;

export const arangoListCollections = defineArangoTool({
  name: 'arango_list_collections',
  featured: 10,
  command: { id: 'arango collections', examples: ['<%= config.bin %> arango collections', '<%= config.bin %> arango collections --system --json'] },
  title: 'List collections',
  description: 'List the collections of the database with their type (document or edge) and document count; system collections only with include_system.',
  input: z.strictObject({ include_system: z.boolean().default(false).describe('Include system collections (names starting with _).') }),
  annotations: READ_ONLY,
  writes: false,
  async run(input, call) {
    const list = await call.timed(call.db.listCollections(!input.include_system));
    const collections = await Promise.all(
      list
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map(async (c) => ({
          name: c.name,
          type: COLLECTION_TYPES[c.type as 2 | 3] ?? String(c.type),
          count: (await call.timed(call.db.collection(c.name).count())).count,
          system: c.isSystem,
        })),
    );
    return { collections };
  },
  render: (r, ui) =>
    r.collections.length
      ? ui.table(r.collections, ['name', 'type', 'count'])
      : ui.color.dim('No collections. Create one with: mcpkit arango create-collection NAME'),
});

export const arangoCreateCollection = defineArangoTool({
  name: 'arango_create_collection',
  command: {
    id: 'arango create-collection',
    args: ['name'],
    examples: ['<%= config.bin %> arango create-collection users', '<%= config.bin %> arango create-collection follows --type edge'],
  },
  title: 'Create a collection',
  description: 'Create a document collection, or an edge collection (documents with _from and _to) for graphs.',
  input: z.strictObject({
    name: z.string().min(1).max(256).describe('Collection name (letters, digits, _ and -; starts with a letter).'),
    type: z.enum(['document', 'edge']).default('document').describe('document or edge.'),
    wait_for_sync: z.boolean().optional().describe('Sync every write to disk before answering.'),
  }),
  annotations: ARANGO_WRITE,
  writes: true,
  async run(input, call) {
    const options = input.wait_for_sync === undefined ? {} : { waitForSync: input.wait_for_sync };
    const collection =
      input.type === 'edge'
        ? await call.timed(call.db.createEdgeCollection(input.name, options))
        : await call.timed(call.db.createCollection(input.name, options));
    return { name: collection.name, type: input.type, created: true };
  },
  render: (r, ui) => `${ui.color.green('✓')} Created ${r.type} collection ${r.name}`,
});

export const arangoDatabaseStatus = defineArangoTool({
  name: 'arango_database_status',
  command: { id: 'arango status', examples: ['<%= config.bin %> arango status', '<%= config.bin %> arango status --json'] },
  title: 'Check the database connection',
  description:
    'Report whether ArangoDB answers: server version, database, endpoints, read-only mode, and the number of collections. Use it first when other arango tools fail.',
  input: z.strictObject({}),
  annotations: READ_ONLY,
  writes: false,
  async run(_input, call) {
    const [version, info, collections] = await Promise.all([
      call.timed(call.db.version()),
      call.timed(call.db.get()),
      call.timed(call.db.listCollections(true)),
    ]);
    return {
      connected: true,
      server: version.server,
      version: version.version,
      license: (version as { license?: string }).license ?? null,
      database: info.name,
      urls: call.settings.urls.map(redact),
      username: call.settings.username,
      read_only: call.settings.readOnly,
      collections: collections.length,
    };
  },
});

export const arangoBackup = defineArangoTool({
  name: 'arango_backup',
  command: {
    id: 'arango backup',
    examples: ['<%= config.bin %> arango backup', '<%= config.bin %> arango backup --collections users --collections orders --output-dir ./backup'],
  },
  title: 'Back up collections to JSON files',
  description:
    'Write collections (default: every non-system collection) to a folder: one JSON array of documents per collection and a manifest.json. Folders are inside the backup folder (arango.backup_dir, default $XDG_STATE_HOME/mcpkit/backups); the default is <database>-<time>.',
  input: z.strictObject({
    output_dir: z.string().min(1).optional().describe('Folder to write, inside the backup folder (created if missing).'),
    collections: z.array(z.string().min(1)).optional().describe('Collections to back up (default: all non-system ones).'),
    doc_limit: z.int().min(1).optional().describe('Most documents per collection (the manifest marks cut collections).'),
  }),
  // It writes files (in the backup folder only), so it is no reader: read-only mode leaves it out.
  annotations: { ...READ_ONLY, readOnlyHint: false, idempotentHint: false },
  writes: false,
  async run(input, call) {
    const [layout, { writeBackup }] = await Promise.all([import('../../arango/backup-layout.js'), import('./backup-writer.js')]);
    const all = await call.timed(call.db.listCollections(true));
    const wanted = input.collections ?? all.map((c) => c.name).sort();
    const unknown = wanted.filter((n) => !all.some((c) => c.name === n));
    if (unknown.length)
      throw new ToolError('ARANGO_ERROR', `collection or view not found: ${unknown.join(', ')}`, {
        details: { errorNum: 1203, http_code: 404, collections: unknown },
      });
    const { folder } = await backupFolder(call.ctx, input.output_dir, layout.defaultBackupFolder(call.settings.database, call.ctx.now()));
    const collections = wanted.map((name) => ({ name, type: all.find((c) => c.name === name)!.type === 3 ? ('edge' as const) : ('document' as const) }));
    return { folder, collections: await writeBackup(call, folder, collections, { docLimit: input.doc_limit }) };
  },
  render: (r, ui) =>
    `${ui.color.green('✓')} Backed up ${r.collections.length} collections (${r.collections.reduce((n, c) => n + c.documents, 0)} documents) to ${r.folder}`,
});
