import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectionFile, MANIFEST_FILE, type BackupManifest } from '../../arango/backup-layout.js';
import { queryAll, type ArangoCall } from './shared.js';

/**
 * Writes collections to `folder` in the backup layout (one JSON array of documents per
 * collection, by _key, then manifest.json), for arango_backup and the graph backups alike.
 * `docLimit` cuts each collection (the manifest marks it); `graph` records a graph definition.
 */
export async function writeBackup(
  call: ArangoCall,
  folder: string,
  collections: readonly { name: string; type: 'document' | 'edge' }[],
  options: { docLimit?: number; graph?: BackupManifest['graph'] } = {},
): Promise<BackupManifest['collections']> {
  mkdirSync(folder, { recursive: true });
  const manifest: BackupManifest = {
    format: 'mcpkit-arango-backup/1',
    database: call.settings.database,
    created_at: call.ctx.now().toISOString(),
    collections: [],
    ...(options.graph ? { graph: options.graph } : {}),
  };
  for (const { name, type } of collections) {
    // One more than the limit tells whether the collection was cut.
    const limit = options.docLimit === undefined ? 1_000_000_000 : options.docLimit + 1;
    const docs = await queryAll<unknown>(call, 'FOR d IN @@c SORT d._key LIMIT @n RETURN d', { '@c': name, n: limit });
    const truncated = options.docLimit !== undefined && docs.length > options.docLimit;
    const kept = truncated ? docs.slice(0, options.docLimit) : docs;
    const file = collectionFile(name);
    writeFileSync(join(folder, file), `${JSON.stringify(kept, null, 2)}\n`);
    manifest.collections.push({ name, type, file, documents: kept.length, truncated });
  }
  writeFileSync(join(folder, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest.collections;
}
