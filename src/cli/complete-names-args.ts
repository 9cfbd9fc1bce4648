import { NAME_KINDS, type NameKind } from './completion-names.js';
import { parsePlainLine } from './args/plain-line.js';

/** A plain `complete-names` line, as the completion functions write it: the kind, and the config named on the line. */
export interface CompleteNamesArgs {
  kind: NameKind;
  config?: string;
}

/**
 * `complete-names KIND [--config FILE]` (what the shell functions of completion-names.ts run),
 * read after `complete-names` by the one plain grammar (plain-line.ts), else undefined: anything
 * else (--json, --jq, --help, an unknown kind, a stray word, `--`) goes through oclif for its usual
 * output and messages. Pure.
 */
export function parseCompleteNamesArgs(argv: readonly string[]): CompleteNamesArgs | undefined {
  const line = parsePlainLine({ config: { type: 'string' } }, argv);
  if (!line || line.terminated || line.positionals.length !== 1) return undefined;
  const [kind] = line.positionals as [string];
  const config = line.values.config as string | undefined;
  if (!(NAME_KINDS as readonly string[]).includes(kind) || config === '') return undefined;
  return { kind: kind as NameKind, ...(config === undefined ? {} : { config }) };
}
