import { createHash } from 'node:crypto';
import { parse } from 'yaml';
import { stableJson } from '../core/stable-json.js';

/** The digest of a process that serves no config file (the built-in defaults). */
export const NO_CONFIG_DIGEST = 'none';

/**
 * What a replica's config is, as a SHA-256 (hex) that two replicas can compare: the file's YAML
 * as written, read as data and written again with sorted keys, so that comments, layout and key
 * order do not count, and every value does. Variables count as they are written (`${VAR}`, never
 * what they expand to): a digest shown on /health must not let anyone guess a secret's value from
 * its hash, and a replica id set per replica (`${REPLICA_ID}`) must not make the same file differ.
 * A text that is not YAML (never served) is hashed as it is. Pure.
 */
export function configDigest(text: string | undefined): string {
  if (text === undefined) return NO_CONFIG_DIGEST;
  let normalized: string;
  try {
    // An empty file is the empty config, as the loader reads it.
    normalized = `yaml:${stableJson((parse(text) as unknown) ?? {})}`;
  } catch {
    normalized = `text:${text}`;
  }
  return createHash('sha256').update(normalized).digest('hex');
}
