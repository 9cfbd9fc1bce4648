import type { Habit } from '../../tool/define.js';
import type { FieldSpec } from './field-specs.js';
import { coerceValue } from './field-specs.js';
import { parsePlainLine, type PlainGrammar, type PlainOption } from './plain-line.js';

/**
 * A tool command's command line parsed without oclif, for the fast path (see tool-fast-path.ts)
 * and the daemon, by the one plain grammar (plain-line.ts). It understands only plain, valid
 * input: `--flag value`, `--flag=value`, `-c value`, booleans (`--no-x` where the default is
 * true), repeated multi-value flags, positionals, `--` and the global `--json` / `--config`.
 * Anything else (--help, a typo, a missing or bad value, a missing argument) returns undefined so
 * that oclif parses it and prints its usual help or error. Pure.
 */
export interface ToolArgs {
  flags: Record<string, unknown>;
  positionals: string[];
  json: boolean;
  config?: string;
  /** --no-daemon, on a tool that may run in mcpkit daemon (ToolDefinition.warm). */
  noDaemon: boolean;
  /** The habit flags given (CommandSpec.habits), by long name. */
  habits: string[];
}

/** The grammar of one tool command's line: its flags, the habits it answers, and the global ones. */
function toolGrammar(named: readonly FieldSpec[], habits: Readonly<Record<string, Habit>>, daemonFlag: boolean): PlainGrammar {
  const grammar: Record<string, PlainOption> = {};
  const chars = new Set(Object.values(habits).flatMap((h) => (h.char ? [h.char] : [])));
  for (const spec of named) {
    if (spec.flag in habits) continue; // a habit of the same name is what the word means
    const short = spec.char && !chars.has(spec.char) ? { short: spec.char } : {};
    grammar[spec.flag] = spec.kind === 'boolean' ? { type: 'boolean', ...short } : { type: 'string', multiple: spec.multiple, ...short };
    if (spec.kind === 'boolean' && spec.default === true) grammar[`no-${spec.flag}`] = { type: 'boolean' };
  }
  // A habit may be said more than once; it is reported once.
  for (const [name, habit] of Object.entries(habits)) grammar[name] = { type: 'boolean', multiple: true, ...(habit.char ? { short: habit.char } : {}) };
  grammar.json = { type: 'boolean' };
  grammar.config = { type: 'string' };
  if (daemonFlag) grammar['no-daemon'] = { type: 'boolean' };
  return grammar;
}

export function parseToolArgs(
  specs: readonly FieldSpec[],
  argv: readonly string[],
  options: { daemonFlag?: boolean; habits?: Readonly<Record<string, Habit>> } = {},
): ToolArgs | undefined {
  const habits = options.habits ?? {};
  const named = specs.filter((s) => !s.positional);
  const positionalSpecs = specs.filter((s) => s.positional);
  const line = parsePlainLine(toolGrammar(named, habits, options.daemonFlag === true), argv);
  if (!line) return undefined;
  const { values } = line;
  if (values.config === '') return undefined;
  const out: ToolArgs = {
    flags: {},
    positionals: line.positionals,
    json: values.json === true,
    ...(typeof values.config === 'string' ? { config: values.config } : {}),
    noDaemon: values['no-daemon'] === true,
    habits: Object.keys(habits).filter((name) => values[name] !== undefined),
  };
  for (const spec of named) {
    if (spec.flag in habits) continue;
    const value = values[spec.flag];
    const negated = values[`no-${spec.flag}`];
    if (value !== undefined && negated !== undefined) return undefined;
    if (negated !== undefined) out.flags[spec.flag] = false;
    if (value === undefined) continue;
    if (spec.kind === 'boolean') {
      out.flags[spec.flag] = true;
      continue;
    }
    const taken: unknown[] = [];
    for (const raw of [value].flat() as string[]) {
      if (spec.options && !spec.options.includes(raw)) return undefined;
      try {
        taken.push(coerceValue(spec, raw));
      } catch {
        return undefined;
      }
    }
    out.flags[spec.flag] = spec.multiple ? taken : taken[0];
  }

  const restTakesAll = positionalSpecs.at(-1)?.multiple ?? false;
  if (out.positionals.length > positionalSpecs.length && !restTakesAll) return undefined;
  for (const [index, spec] of positionalSpecs.entries()) {
    const value = out.positionals[index];
    if (value === undefined && spec.required) return undefined;
    if (value !== undefined && spec.options && !spec.options.includes(value)) return undefined;
  }
  if (named.some((s) => s.required && out.flags[s.flag] === undefined)) return undefined;
  return out;
}
