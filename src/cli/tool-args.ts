import type { Habit } from '../tool/define.js';
import type { FieldSpec } from './field-specs.js';
import { coerceValue } from './field-specs.js';

/**
 * A tool command's command line parsed without oclif, for the fast path (see tool-fast-path.ts).
 * It understands only plain, valid input: `--flag value`, `--flag=value`, `-c value`, booleans
 * (`--no-x` where the default is true), repeated multi-value flags, positionals, `--` and the
 * global `--json` / `--config`. Anything else (--help, a typo, a missing or bad value, a missing
 * argument) returns undefined so that oclif parses it and prints its usual help or error. Pure.
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

export function parseToolArgs(
  specs: readonly FieldSpec[],
  argv: readonly string[],
  options: { daemonFlag?: boolean; habits?: Readonly<Record<string, Habit>> } = {},
): ToolArgs | undefined {
  const habits = Object.entries(options.habits ?? {});
  const habitByChar = new Map(habits.filter(([, h]) => h.char).map(([name, h]) => [h.char!, name]));
  const named = specs.filter((s) => !s.positional);
  const positionalSpecs = specs.filter((s) => s.positional);
  const byFlag = new Map(named.map((s) => [s.flag, s]));
  const byChar = new Map(named.filter((s) => s.char).map((s) => [s.char!, s]));
  const out: ToolArgs = { flags: {}, positionals: [], json: false, noDaemon: false, habits: [] };
  const habit = (name: string | undefined): boolean => {
    if (name === undefined || !options.habits?.[name]) return false;
    if (!out.habits.includes(name)) out.habits.push(name);
    return true;
  };
  const seen = new Set<string>();

  const take = (spec: FieldSpec, raw: string | undefined): boolean => {
    if (raw === undefined) return false;
    if (spec.options && !spec.options.includes(raw)) return false;
    let value: unknown;
    try {
      value = coerceValue(spec, raw);
    } catch {
      return false;
    }
    if (spec.multiple) {
      out.flags[spec.flag] = [...((out.flags[spec.flag] as unknown[] | undefined) ?? []), value];
    } else {
      if (seen.has(spec.flag)) return false;
      out.flags[spec.flag] = value;
    }
    seen.add(spec.flag);
    return true;
  };
  // A value that looks like a flag is ambiguous; oclif decides what it means.
  const valueAt = (i: number): string | undefined => {
    const value = argv[i];
    return value === undefined || value.startsWith('-') ? undefined : value;
  };

  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith('-') || token === '-') {
      out.positionals.push(token);
      continue;
    }
    const long = /^--([a-z][a-z0-9-]*)(?:=([\s\S]*))?$/.exec(token);
    if (long) {
      const [, name, inline] = long as unknown as [string, string, string | undefined];
      if (name === 'json' && inline === undefined && !out.json) {
        out.json = true;
        continue;
      }
      if (name === 'no-daemon' && options.daemonFlag && inline === undefined && !out.noDaemon) {
        out.noDaemon = true;
        continue;
      }
      if (name === 'config' && out.config === undefined) {
        out.config = inline ?? valueAt(++i);
        if (!out.config) return undefined;
        continue;
      }
      if (inline === undefined && habit(name)) continue;
      const spec = byFlag.get(name);
      if (spec?.kind === 'boolean') {
        if (inline !== undefined || seen.has(spec.flag)) return undefined;
        out.flags[spec.flag] = true;
        seen.add(spec.flag);
        continue;
      }
      const negated = name.startsWith('no-') ? byFlag.get(name.slice(3)) : undefined;
      if (!spec && negated?.kind === 'boolean' && negated.default === true && inline === undefined && !seen.has(negated.flag)) {
        out.flags[negated.flag] = false;
        seen.add(negated.flag);
        continue;
      }
      if (!spec || !take(spec, inline ?? valueAt(++i))) return undefined;
      continue;
    }
    const short = /^-([a-zA-Z])$/.exec(token);
    if (short && habit(habitByChar.get(short[1]!))) continue;
    const spec = short ? byChar.get(short[1]!) : undefined;
    if (!spec) return undefined;
    if (spec.kind === 'boolean') {
      if (seen.has(spec.flag)) return undefined;
      out.flags[spec.flag] = true;
      seen.add(spec.flag);
    } else if (!take(spec, valueAt(++i))) return undefined;
  }

  const restTakesAll = positionalSpecs.at(-1)?.multiple ?? false;
  if (out.positionals.length > positionalSpecs.length && !restTakesAll) return undefined;
  for (const [index, spec] of positionalSpecs.entries()) {
    const value = out.positionals[index];
    if (value === undefined && spec.required) return undefined;
    if (value !== undefined && spec.options && !spec.options.includes(value)) return undefined;
  }
  if (named.some((s) => s.required && !seen.has(s.flag))) return undefined;
  return out;
}
