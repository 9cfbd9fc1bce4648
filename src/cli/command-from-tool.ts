import { Args, Flags } from '@oclif/core';
import type { Arg, Flag } from '@oclif/core/interfaces';
import { field, ToolError } from '../core/errors.js';
import { inputJsonSchema } from '../core/schema.js';
import type { AnyTool } from '../tool/define.js';
import { summaryOf } from '../tool/define.js';
import { McpkitCommand } from './base-command.js';
import { checkHabits, coerceValue, fieldSpecs, inputFromCommandLine, type FieldSpec } from './args/field-specs.js';

// oclif's flag builders are typed by overloads on literal options (`multiple: true`); these options
// are computed from a schema at run time, so they are assembled untyped and checked by tests instead.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- oclif's Flag<T> and Arg<T> are generic over the value type, which is known only at run time here.
type AnyFlag = Flag<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
type AnyArg = Arg<any>;
type FlagOptions = Record<string, unknown>;

function flagFor(spec: FieldSpec): AnyFlag {
  const options: FlagOptions = { description: spec.description, required: spec.required, char: spec.char };
  if (spec.kind === 'boolean') return Flags.boolean({ ...options, allowNo: spec.default === true } as FlagOptions) as AnyFlag;
  if (spec.multiple) Object.assign(options, { multiple: true, multipleNonGreedy: true });
  // Shown in --help; zod applies the same default when the flag is absent.
  else if (spec.kind !== 'json' && spec.default !== undefined) options.default = spec.default;
  if (spec.options) return Flags.string({ ...options, options: spec.options } as FlagOptions) as AnyFlag;
  return Flags.custom<unknown>({
    ...options,
    helpValue: spec.kind === 'json' ? '<json>' : `<${spec.kind === 'string' ? 'value' : spec.kind}>`,
    parse: async (input: string) => coerceValue(spec, input),
  } as FlagOptions)() as AnyFlag;
}

function argFor(spec: FieldSpec): AnyArg {
  const description = spec.multiple ? `${spec.description ?? spec.field} (one or more)` : spec.description;
  return Args.string({ description, required: spec.required, ...(spec.options ? { options: spec.options } : {}) }) as AnyArg;
}

/**
 * A tool's text in a terminal's words: the MCP names of its group's tools it mentions
 * (`arango_backup_graph`) become the commands a person types (`arango backup-graph`). Pure; the
 * parity test checks that each such command exists.
 */
export function inTerminalWords(group: string, text: string): string {
  return text.replace(
    new RegExp(`(?<![\\w-])${group}_([a-z0-9]+(?:_[a-z0-9]+)*)(?![\\w-])`, 'g'),
    (_word, rest: string) => `${group} ${rest.replaceAll('_', '-')}`,
  );
}

/** An oclif command class generated from a tool definition: flags and args come from its input schema. */
export function commandFromTool(tool: AnyTool) {
  const specs = fieldSpecs(inputJsonSchema(tool.input), tool.command);
  const positional = (tool.command.args ?? []).map((field) => specs.find((s) => s.field === field)!);
  const [, ...rest] = tool.description.split('\n');
  const booleanFlags = new Map(specs.filter((s) => s.kind === 'boolean' && !s.positional).map((s) => [s.flag, s.default === true]));

  class ToolCommand extends McpkitCommand {
    static override summary = inTerminalWords(tool.group, summaryOf(tool));
    static override description = inTerminalWords(tool.group, rest.join('\n').trim()) || undefined;
    static override examples = [...tool.command.examples];
    // Hidden: they still run, but help and shell completion show each command once, by its name.
    static override hiddenAliases = (tool.command.aliases ?? []).map((id) => id.replaceAll(' ', ':'));
    // Not strict (the words after "--" are the tool's), so oclif would print "NAME...".
    static override usage = tool.command.afterDoubleDash ? [commandLineUsage(tool, positional)] : undefined;
    static override flags = {
      ...Object.fromEntries(specs.filter((s) => !s.positional).map((s) => [s.flag, flagFor(s)])),
      ...Object.fromEntries(
        Object.entries(tool.command.habits ?? {}).map(([flag, h]) => [flag, Flags.boolean({ description: h.description, char: h.char as never })]),
      ),
      ...(tool.warm ? McpkitCommand.daemonFlags : {}),
    };
    static override args = Object.fromEntries(positional.map((s) => [s.field, argFor(s)]));
    // A trailing array argument takes the rest of the command line; so do the words after `--`.
    static override strict = !positional.some((s) => s.multiple) && !tool.command.afterDoubleDash;
    static readonly tool = tool;
    /** Own only on the generated class (a hand-written subclass inherits it): the parity test reads it. */
    static readonly generatedFrom = tool;
    /** For commands that extend this one with terminal-only flags (registry list --all). */
    static readonly specs = specs;

    async run(): Promise<unknown> {
      const { head, tail } = splitAtDoubleDash(this.argv, tool.command.afterDoubleDash);
      this.argv = spelledBooleans(head, booleanFlags);
      const { flags, argv } = await this.parse(ToolCommand);
      const { 'no-daemon': noDaemon, ...fields } = flags as Record<string, unknown>;
      const habits = Object.keys(tool.command.habits ?? {}).filter((flag) => fields[flag] === true);
      const words = argv as string[];
      const raw = inputFromCommandLine(specs, fields, words);
      checkHabits(tool.command, habits, raw);
      if (tool.command.afterDoubleDash && !positional.some((s) => s.multiple)) Object.assign(raw, extraWords(tool, raw, words.slice(positional.length)));
      if (tail) Object.assign(raw, afterDoubleDash(tool, raw, tail));
      return this.runTool(tool, raw, flags.config, noDaemon === true);
    }
  }
  return ToolCommand;
}

/** The words before and after `--`, for a tool that takes a command line there (CommandSpec.afterDoubleDash). Pure. */
export function splitAtDoubleDash(argv: readonly string[], fields: readonly [string, string] | undefined): { head: string[]; tail?: string[] } {
  const at = fields ? argv.indexOf('--') : -1;
  return at < 0 ? { head: [...argv] } : { head: argv.slice(0, at), tail: argv.slice(at + 1) };
}

/** The input fields the words after `--` fill; refused when they are empty or the same fields came as flags too. */
function afterDoubleDash(tool: AnyTool, raw: Record<string, unknown>, words: readonly string[]): Record<string, unknown> {
  const [first, rest] = tool.command.afterDoubleDash!;
  if (words.length === 0)
    throw new ToolError('INVALID_INPUT', `Nothing follows "--": give the ${first} to run after it.`, {
      hint: `Write the ${first} and its arguments after "--", e.g. mcpkit ${tool.command.id} NAME -- npx -y PACKAGE.`,
    });
  if (raw[first] !== undefined || raw[rest] !== undefined) {
    throw new ToolError('INVALID_INPUT', `Give the ${first} either after "--" or with ${field(first)}, not both.`);
  }
  return { [first]: words[0], ...(words.length > 1 ? { [rest]: words.slice(1) } : {}) };
}

/** `server add NAME [URL] [FLAGS] [-- COMMAND ARGS...]`: a command that takes a command line after `--`. Pure. */
function commandLineUsage(tool: AnyTool, positional: readonly FieldSpec[]): string {
  const [first, rest] = tool.command.afterDoubleDash!;
  const args = positional.map((s) => (s.required ? s.field.toUpperCase() : `[${s.field.toUpperCase()}]`));
  return [tool.command.id, ...args, ...(tool.command.urlWord ? ['[URL]'] : []), '[FLAGS]', `[-- ${first.toUpperCase()} ${rest.toUpperCase()}...]`].join(' ');
}

/**
 * Words after a command's arguments that are not after `--`: a lone URL fills CommandSpec.urlWord
 * (`server add linear https://mcp.linear.app/mcp`); anything else is refused with where it goes.
 */
function extraWords(tool: AnyTool, raw: Record<string, unknown>, words: readonly string[]): Record<string, unknown> {
  if (words.length === 0) return {};
  const urlField = tool.command.urlWord;
  if (urlField && words.length === 1 && /^https?:\/\//i.test(words[0]!)) {
    if (raw[urlField] !== undefined) throw new ToolError('INVALID_INPUT', `Give the URL either as an argument or with ${field(urlField)}, not both.`);
    return { [urlField]: words[0] };
  }
  const [first] = tool.command.afterDoubleDash!;
  throw new ToolError('INVALID_INPUT', `Unexpected argument "${words[0]}": the ${first} to run and its arguments go after "--".`, {
    details: { arguments: words },
    hint: `Write mcpkit ${tool.command.id} ${typeof raw.name === 'string' ? raw.name : 'NAME'} -- ${words.join(' ')}${urlField ? `, or give a URL (https://...) as it is` : ''}.`,
  });
}

/**
 * `--execute=false` and `--execute=true` as oclif understands them (`--no-execute`, `--execute`):
 * people and scripts write booleans both ways, and oclif takes only the bare forms. `booleans`
 * maps each boolean flag to whether it has a `--no-` form (it defaults to true); `=false` of one
 * that has none is its default, so the word is dropped. Words after `--` are left alone. Pure.
 */
export function spelledBooleans(argv: readonly string[], booleans: ReadonlyMap<string, boolean>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const match = /^--([^=]+)=(true|false)$/i.exec(word);
    if (!match || !booleans.has(match[1]!)) out.push(word);
    else if (match[2]!.toLowerCase() === 'true') out.push(`--${match[1]}`);
    else if (booleans.get(match[1]!)) out.push(`--no-${match[1]}`);
  }
  return out;
}
