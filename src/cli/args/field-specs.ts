import { ToolError } from '../../core/errors.js';
import type { JsonSchema } from '../../core/schema.js';
import { parsePairs } from '../../config/edits/servers-edit.js';
import { flagName } from '../../tool/command-line.js';
import type { CommandSpec } from '../../tool/define.js';

/**
 * How one input field appears on the command line. Derived from the tool's published
 * JSON Schema so the CLI and MCP can never disagree about types, enums or defaults.
 */
export type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'json';

export interface FieldSpec {
  field: string;
  /** kebab-case flag name (`expand_fields` -> `expand-fields`). */
  flag: string;
  kind: FieldKind;
  /** Arrays of scalars become repeatable flags (or the rest of argv when positional). */
  multiple: boolean;
  required: boolean;
  positional: boolean;
  options?: string[];
  default?: unknown;
  description?: string;
  char?: string;
  /** An object of strings written as repeatable KEY=VALUE flags (CommandSpec.pairs). */
  pairs?: boolean;
}

export interface CommandShape {
  args?: readonly string[];
  flagNames?: Readonly<Record<string, string>>;
  chars?: Readonly<Record<string, string>>;
  pairs?: readonly string[];
}

/** Strips `anyOf: [X, {type: null}]` (nullable) down to X. */
function nonNull(node: JsonSchema): JsonSchema {
  if (Array.isArray(node.type)) {
    const types = node.type.filter((t) => t !== 'null');
    if (types.length === 1) return { ...node, type: types[0] };
  }
  const alternatives = node.anyOf ?? node.oneOf;
  if (alternatives) {
    const rest = alternatives.filter((a) => a.type !== 'null');
    if (rest.length === 1) return { ...rest[0], description: node.description ?? rest[0]!.description, default: node.default ?? rest[0]!.default };
  }
  return node;
}

function scalarKind(node: JsonSchema): { kind: FieldKind; options?: string[] } | undefined {
  if (Array.isArray(node.enum) && node.enum.every((v) => typeof v === 'string')) return { kind: 'string', options: node.enum as string[] };
  if (typeof node.const === 'string') return { kind: 'string', options: [node.const] };
  switch (node.type) {
    case 'string':
      return { kind: 'string' };
    case 'integer':
      return { kind: 'integer' };
    case 'number':
      return { kind: 'number' };
    case 'boolean':
      return { kind: 'boolean' };
    default:
      return undefined;
  }
}

/**
 * The scalar kind of a list field: an array of scalars, or one scalar or an array of it (a glob or
 * several): either is a repeatable flag in a terminal.
 */
function listItem(node: JsonSchema): { kind: FieldKind; options?: string[] } | undefined {
  if (node.type === 'array' && node.items) return scalarKind(nonNull(node.items));
  const alternatives = node.anyOf ?? node.oneOf;
  if (alternatives?.length !== 2) return undefined;
  const one = alternatives.find((a) => a.type !== 'array');
  const many = alternatives.find((a) => a.type === 'array' && a.items);
  const kind = one && scalarKind(one);
  const itemKind = many && scalarKind(nonNull(many.items!));
  return kind && itemKind && kind.kind === itemKind.kind ? itemKind : undefined;
}

export function fieldSpecs(schema: JsonSchema, command: CommandShape = {}): FieldSpec[] {
  const required = new Set(schema.required ?? []);
  const positional = command.args ?? [];
  return Object.entries(schema.properties ?? {}).map(([field, raw]) => {
    const node = nonNull(raw);
    let kind: FieldKind = 'json';
    let options: string[] | undefined;
    let multiple = false;
    const scalar = scalarKind(node);
    const pairs = command.pairs?.includes(field) === true;
    if (pairs) {
      kind = 'string';
      multiple = true;
    } else if (scalar && scalar.kind !== 'json') {
      ({ kind, options } = scalar);
    } else {
      const item = listItem(node);
      if (item && item.kind !== 'boolean') {
        multiple = true;
        ({ kind, options } = item);
      }
    }
    const spec: FieldSpec = {
      field,
      flag: flagName(command, field),
      kind,
      multiple,
      required: required.has(field) && node.default === undefined,
      positional: positional.includes(field),
    };
    if (options) spec.options = options;
    if (pairs) spec.pairs = true;
    if (node.default !== undefined) spec.default = node.default;
    if (node.description) spec.description = node.description;
    const char = command.chars?.[field];
    if (char) spec.char = char;
    return spec;
  });
}

/** Turns one command-line string into the field's JSON value; a bad value is an INVALID_INPUT error (exit 2). */
/** `label` names the value as the user wrote it: `--limit` for a flag, `limit=` for a `call` pair. */
export function coerceValue(spec: Pick<FieldSpec, 'kind' | 'flag'>, raw: string, label = `--${spec.flag}`): unknown {
  switch (spec.kind) {
    case 'string':
      return raw;
    case 'integer': {
      if (!/^[-+]?\d+$/.test(raw.trim())) throw usage(`${label} expects a whole number, got "${raw}".`);
      return Number(raw);
    }
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || Number.isNaN(n)) throw usage(`${label} expects a number, got "${raw}".`);
      return n;
    }
    case 'boolean': {
      const v = raw.toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(v)) return true;
      if (['false', '0', 'no', 'off'].includes(v)) return false;
      throw usage(`${label} expects true or false, got "${raw}".`);
    }
    case 'json':
      try {
        return JSON.parse(raw);
      } catch (error) {
        throw usage(`${label} expects JSON (e.g. '{"key":"value"}'): ${(error as Error).message}`);
      }
  }
}

/**
 * Builds the raw tool input from parsed flags and positional values. Fields the user did not
 * give stay absent so zod applies the schema's defaults: one source of truth for defaults.
 */
export function inputFromCommandLine(
  specs: readonly FieldSpec[],
  flags: Readonly<Record<string, unknown>>,
  positionals: readonly string[],
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const spec of specs) {
    if (spec.positional) continue;
    const value = flags[spec.flag];
    if (value === undefined) continue;
    input[spec.field] = spec.pairs ? parsePairs(value as string[], spec.flag) : value;
  }
  const positionalSpecs = specs.filter((s) => s.positional);
  positionalSpecs.forEach((spec, index) => {
    const last = index === positionalSpecs.length - 1;
    if (spec.multiple && last) {
      const rest = positionals.slice(index);
      if (rest.length > 0) input[spec.field] = rest.map((v) => coerceValue(spec, v));
    } else if (positionals[index] !== undefined) {
      input[spec.field] = coerceValue(spec, positionals[index]!);
    }
  });
  return input;
}

/**
 * `call TOOL k=v ...`: each pair coerced by the schema's type for that key (a string field keeps
 * "42" as text; other fields take JSON). Unknown keys pass through for zod to reject by name.
 */
export function inputFromPairs(pairs: readonly string[], specs: readonly FieldSpec[]): Record<string, unknown> {
  const byField = new Map(specs.map((s) => [s.field, s]));
  const input: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw usage(`Argument "${pair}" is not key=value. Write e.g. query=github, or pass --args '{"query":"github"}'.`);
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    const spec = byField.get(key);
    let value: unknown;
    if (spec && spec.kind === 'string' && !spec.multiple) value = raw;
    else if (spec && spec.multiple && !raw.trimStart().startsWith('[')) value = raw.split(',').map((v) => coerceValue(spec, v, `${key}=`));
    else if (spec) value = coerceValue({ kind: spec.kind === 'string' ? 'json' : spec.kind, flag: spec.flag }, raw, `${key}=`);
    else value = parseLoose(raw);
    if (spec?.multiple && key in input) {
      input[key] = [...(input[key] as unknown[]), ...(value as unknown[])];
    } else input[key] = value;
  }
  return input;
}

/**
 * The habit flags a command line gave (CommandSpec.habits): they change nothing, but one that
 * contradicts a field the line set (-F with --regex) is refused rather than silently outvoted.
 */
export function checkHabits(command: Pick<CommandSpec, 'habits' | 'flagNames'>, given: readonly string[], input: Readonly<Record<string, unknown>>): void {
  for (const flag of given) {
    const conflicts = command.habits?.[flag]?.conflicts;
    if (conflicts !== undefined && input[conflicts] === true) throw usage(`--${flag} and --${flagName(command, conflicts)} contradict each other: give one.`);
  }
}

function usage(message: string): ToolError {
  return new ToolError('INVALID_INPUT', message);
}

function parseLoose(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
