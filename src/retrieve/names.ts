import { readdirSync } from 'node:fs';

/**
 * Names of a folder's entries that are not valid UTF-8, in the form readdir decoded them (with
 * U+FFFD for each bad byte): that form names no file, so such an entry can be neither opened nor
 * shown truthfully. Callers ask only when a decoded name holds U+FFFD (`mayBeUndecodable`): the
 * folder is then read again, as bytes.
 */
export function undecodableNames(folder: string): ReadonlySet<string> {
  const bad = new Set<string>();
  for (const raw of readdirSync(folder, { encoding: 'buffer' })) {
    const decoded = raw.toString('utf8');
    if (!Buffer.from(decoded).equals(raw)) bad.add(decoded);
  }
  return bad;
}

/** Whether readdir's decoding of a name may have replaced bytes that were not UTF-8. */
export function mayBeUndecodable(name: string): boolean {
  return name.includes('\uFFFD');
}
