import { NAME_KINDS, type NameKind } from '../completion-names.js';

/** A plain `complete-names` line, as the completion functions write it: the kind, and the config named on the line. */
export interface CompleteNamesArgs {
  kind: NameKind;
  config?: string;
}

/**
 * `complete-names KIND` or `complete-names KIND --config FILE` (what the shell functions of
 * completion-names.ts run, after `complete-names`), else undefined: anything else (--json, --help,
 * an unknown kind, a stray word) goes through oclif for its usual output and messages. Pure.
 */
export function parseCompleteNamesArgs(argv: readonly string[]): CompleteNamesArgs | undefined {
  const [kind, ...rest] = argv;
  if (!(NAME_KINDS as readonly string[]).includes(kind ?? '')) return undefined;
  if (rest.length === 0) return { kind: kind as NameKind };
  const [flag, file, ...more] = rest;
  const config = flag === '--config' ? file : flag?.startsWith('--config=') ? flag.slice('--config='.length) : undefined;
  const takes = flag === '--config' ? 2 : 1;
  // A value that looks like a flag, an empty one, or more words: oclif says what it makes of them.
  if (config === undefined || config === '' || config.startsWith('-') || rest.length !== takes || more.length) return undefined;
  return { kind: kind as NameKind, config };
}
