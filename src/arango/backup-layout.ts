/**
 * How backups are laid out on disk: one folder per run, one JSON file per collection holding an
 * array of its documents (readable, diffable, restorable with arangoimport --type json), and a
 * manifest. Graph backups add the graph definition. Pure: names and contents only.
 */
export interface BackupManifest {
  format: 'mcpkit-arango-backup/1';
  database: string;
  created_at: string;
  collections: { name: string; type: 'document' | 'edge'; file: string; documents: number; truncated: boolean }[];
  graph?: { name: string; edgeDefinitions: unknown[]; orphanCollections: string[] };
}

/** A file name for a collection that cannot escape the folder or collide with the manifest. */
export function collectionFile(name: string): string {
  return `${name.replace(/[^A-Za-z0-9_-]/g, '_')}.json`;
}

/** The default folder of a run, inside the backup folder: <database>-<UTC time without colons>. */
export function defaultBackupFolder(database: string, now: Date): string {
  return `${database}-${now.toISOString().replace(/[:.]/g, '-')}`;
}

export const MANIFEST_FILE = 'manifest.json';
