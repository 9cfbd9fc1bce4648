import type { RequiredLiterals } from '../../core/regexp/required-literals.js';
import made from './rule-prefilters.json' with { type: 'json' };

/**
 * The scan rules' prefilters (core/regexp/required-literals.ts) as scripts/rule-prefilters.ts computed
 * them at build time, by the pattern as `String(pattern)` gives it (`/source/flags`): reading
 * every pattern's source for its literals was ~40 ms of a serve's first listing. A pattern the file
 * lacks (a rule changed since) is read at run time as before, so a stale file costs time, never a
 * finding; test/proxy/pins/rule-prefilters.test.ts fails whenever the file and the rules differ.
 */
const known = made as unknown as Readonly<Record<string, RequiredLiterals | null>>;

/** The build-time prefilter of a pattern: null where it has none, undefined where the file does not know it. */
export function builtPrefilter(pattern: RegExp): RequiredLiterals | null | undefined {
  const key = String(pattern);
  return Object.hasOwn(known, key) ? known[key] : undefined;
}
