import { readdirSync } from 'node:fs';

/**
 * Names of a folder's entries that are not valid UTF-8, in the form readdir decoded them (with
 * U+FFFD for each bad byte): that form names no file, so such an entry can be neither opened nor
 * shown truthfully. The folder is read again as bytes only when a decoded name holds U+FFFD.
 */
export function undecodableNames(folder: string, names: readonly string[]): ReadonlySet<string> | undefined {
  if (!names.some((name) => name.includes('\uFFFD'))) return undefined;
  const bad = new Set<string>();
  for (const raw of readdirSync(folder, { encoding: 'buffer' })) {
    const decoded = raw.toString('utf8');
    if (!Buffer.from(decoded).equals(raw)) bad.add(decoded);
  }
  return bad;
}
