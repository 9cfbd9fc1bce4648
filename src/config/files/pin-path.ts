import { basename, dirname, join } from 'node:path';

/**
 * Where a config's lock file is, apart from pin-file.ts: what must never be served (own-files.ts)
 * knows it without loading the YAML library (a search worker loads own-files.ts, not YAML).
 */
export function pinFilePath(configPath: string): string {
  const name = basename(configPath).replace(/\.ya?ml$/i, '');
  return join(dirname(configPath), `${name}.lock.yaml`);
}
