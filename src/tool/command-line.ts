import type * as z from 'zod';
import type { AnyTool, CommandSpec } from './define.js';

/** A field's flag as the terminal spells it (`expand_fields` -> `expand-fields`, or the command's own name). */
export function flagName(command: Pick<CommandSpec, 'flagNames'>, field: string): string {
  return command.flagNames?.[field] ?? kebab(field);
}

export function kebab(name: string): string {
  return name
    .replace(/_/g, '-')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
}

/** A word as a POSIX shell reads it back unchanged. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line that runs `tool` with `input`: fields equal to their defaults are left out,
 * positionals come first, flags in the order of the input schema. Pure: for messages such as
 * "the next page: mcpkit registry list --cursor X ...".
 */
export function commandLineFor<T extends AnyTool>(tool: T, input: Partial<z.output<T['input']>>, bin = 'mcpkit'): string {
  const shape = tool.input.shape as Record<string, z.ZodType>;
  // Each field's own default (the whole input may not parse without its required fields).
  const defaultOf = (field: string) => shape[field]!.safeParse(undefined).data as unknown;
  const values = input as Record<string, unknown>;
  const positional = (tool.command.args ?? []).flatMap((field) => words(values[field]));
  const flags: string[] = [];
  for (const field of Object.keys(shape)) {
    const value = values[field];
    if (value === undefined || tool.command.args?.includes(field) || JSON.stringify(value) === JSON.stringify(defaultOf(field))) continue;
    const flag = flagName(tool.command, field);
    if (typeof value === 'boolean') flags.push(value ? `--${flag}` : `--no-${flag}`);
    else for (const word of words(value)) flags.push(`--${flag} ${word}`);
  }
  return [bin, tool.command.id, ...positional, ...flags].join(' ');
}

function words(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(words);
  return [shellQuote(typeof value === 'string' ? value : JSON.stringify(value))];
}
