import { parseArgs } from 'node:util';

/**
 * The one grammar of every command line mcpkit reads without oclif: `serve`'s fast path, a tool
 * command's fast path and `call` (in bin/run.js and in the daemon). It is Node's own parseArgs
 * (node:util, loaded with Node, so it costs nothing at start), held to the plain subset that it and
 * oclif read the same way: `--flag value`, `--flag=value`, `-c value`, booleans, repeated flags
 * where repetition is declared, positionals and `--`. Anything else (an unknown flag, a missing
 * value, a value that looks like a flag, a flag given twice, grouped short flags, `-cVALUE`)
 * returns undefined, and oclif parses the line with its usual help and errors. Pure.
 */
export interface PlainOption {
  type: 'string' | 'boolean';
  short?: string;
  /** May be given more than once (its values are kept in order). */
  multiple?: boolean;
}

export type PlainGrammar = Readonly<Record<string, PlainOption>>;

export interface PlainLine {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
  /** Whether the line had `--` (what follows it is positional whatever it looks like). */
  terminated: boolean;
}

export function parsePlainLine(grammar: PlainGrammar, argv: readonly string[], options: { positionals?: boolean } = {}): PlainLine | undefined {
  let parsed: ReturnType<typeof parseArgs<{ options: PlainGrammar; strict: true; allowPositionals: boolean; tokens: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: grammar, strict: true, allowPositionals: options.positionals ?? true, tokens: true });
  } catch {
    return undefined;
  }
  const given = new Set<string>();
  const groupAt = new Set<number>();
  let terminated = false;
  for (const token of parsed.tokens) {
    if (token.kind === 'option-terminator') terminated = true;
    if (token.kind !== 'option') continue;
    if (!token.rawName.startsWith('--')) {
      // -abc and -cVALUE: oclif has its own reading of these.
      if (token.inlineValue || groupAt.has(token.index)) return undefined;
      groupAt.add(token.index);
    }
    // parseArgs takes `--flag -` as a value; oclif (and a person) may read it as stdin or a flag.
    if (token.inlineValue === false && token.value?.startsWith('-')) return undefined;
    if (given.has(token.name) && !grammar[token.name]?.multiple) return undefined;
    given.add(token.name);
  }
  return { values: { ...parsed.values }, positionals: parsed.positionals, terminated };
}
