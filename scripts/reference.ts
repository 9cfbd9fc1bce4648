/**
 * docs/reference/, made from what the code declares: the CLI from oclif.manifest.json (every
 * command, its arguments, flags and examples), the config from its JSON Schema (every key with its
 * description), and the error codes from their closed list. `npm run docs:reference` writes them;
 * test/unit/reference-docs.test.ts makes them anew and fails when a file is stale. Pure apart from
 * the writing at the bottom.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { configSchema } from '../src/config/schema/schema.js';
import { ERROR_CODES } from '../src/core/errors.js';

interface ManifestFlag {
  name: string;
  char?: string;
  description?: string;
  type: 'boolean' | 'option';
  multiple?: boolean;
  options?: string[];
  default?: unknown;
  helpGroup?: string;
  hidden?: boolean;
}
interface ManifestCommand {
  id: string;
  summary?: string;
  description?: string;
  hidden?: boolean;
  aliases?: string[];
  examples?: (string | { command: string; description?: string })[];
  args: Record<string, { name: string; description?: string; required?: boolean; options?: string[] }>;
  flags: Record<string, ManifestFlag>;
}

const GENERATED = (source: string) => `<!-- Generated from ${source} by npm run docs:reference; do not edit by hand. -->\n\n`;
const cell = (text: string | undefined) =>
  (text ?? '')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();

/** One command's section. */
function commandSection(bin: string, command: ManifestCommand): string {
  const words = command.id.split(':').join(' ');
  const args = Object.values(command.args);
  const usage = [bin, words, ...args.map((a) => (a.required ? a.name.toUpperCase() : `[${a.name.toUpperCase()}]`)), '[FLAGS]'].join(' ');
  const lines = [`### \`${bin} ${words}\``, '', cell(command.summary ?? command.description?.split('\n')[0]), '', '```', usage, '```', ''];
  if (command.description && command.summary && command.description !== command.summary) lines.push(command.description.trim(), '');
  if (args.length) {
    lines.push('| argument | description |', '|---|---|');
    for (const a of args)
      lines.push(
        `| \`${a.name.toUpperCase()}\`${a.required ? '' : ' (optional)'} | ${cell(a.description)}${a.options ? ` One of: ${a.options.join(', ')}.` : ''} |`,
      );
    lines.push('');
  }
  const flags = Object.values(command.flags).filter((f) => !f.hidden);
  if (flags.length) {
    lines.push('| flag | description |', '|---|---|');
    for (const f of flags.sort((a, b) => Number(a.helpGroup === 'GLOBAL') - Number(b.helpGroup === 'GLOBAL') || a.name.localeCompare(b.name))) {
      const name = `${f.char ? `-${f.char}, ` : ''}--${f.name}${f.type === 'option' ? ' VALUE' : ''}${f.multiple ? '...' : ''}`;
      const extra = [
        f.options ? `One of: ${f.options.join(', ')}.` : '',
        f.default !== undefined && f.type === 'option' ? `Default: ${JSON.stringify(f.default)}.` : '',
      ];
      lines.push(`| \`${name}\` | ${[cell(f.description), ...extra].filter(Boolean).join(' ')} |`);
    }
    lines.push('');
  }
  const examples = (command.examples ?? []).map((e) => (typeof e === 'string' ? e : e.command).replace(/<%= config\.bin %>/g, bin));
  if (examples.length) lines.push('```sh', ...examples, '```', '');
  if (command.aliases?.length) lines.push(`Also: ${command.aliases.map((a) => `\`${bin} ${a.split(':').join(' ')}\``).join(', ')}.`, '');
  return lines.join('\n');
}

/** docs/reference/cli.md: every command that is not hidden, by topic. */
export function cliReference(manifest: { commands: Record<string, ManifestCommand> }, bin = 'mcpkit'): string {
  const commands = Object.values(manifest.commands)
    .filter((c) => !c.hidden)
    .sort((a, b) => a.id.localeCompare(b.id));
  const topics = [...new Set(commands.map((c) => c.id.split(':')[0]!))];
  const out = [
    GENERATED('oclif.manifest.json'),
    '# Command reference',
    '',
    `Every command of \`${bin}\`, its arguments, flags and examples. \`--json\` and \`--jq\` are on every command that prints a result; \`${bin} COMMAND --help\` says the same in the terminal.`,
    '',
  ];
  out.push(topics.map((t) => `[${t}](#${t})`).join(' · '), '');
  for (const topic of topics) {
    out.push(`## ${topic}`, '');
    for (const c of commands.filter((x) => x.id.split(':')[0] === topic)) out.push(commandSection(bin, c));
  }
  return `${out.join('\n').trimEnd()}\n`;
}

type JsonSchema = {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  default?: unknown;
  const?: unknown;
};

function typeOf(s: JsonSchema): string {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return [...new Set(alternatives.map(typeOf))].join(' or ');
  if (s.type === 'array') return `list of ${s.items ? typeOf(s.items) : 'any'}`;
  if (s.type === 'object' && !s.properties && typeof s.additionalProperties === 'object') return `map of ${typeOf(s.additionalProperties)}`;
  return Array.isArray(s.type) ? s.type.join(' or ') : (s.type ?? 'any');
}

/** Each key with its path, type, default and description, depth first. Maps of named entries (mcp_servers.NAME) are walked through their entry's keys. */
function keyRows(schema: JsonSchema, path: string, rows: string[], depth: number): void {
  if (depth > 8) return;
  // An object, or several shapes of one (a filter rule is an include or an exclude): each key once.
  const shapes = [schema, ...(schema.anyOf ?? schema.oneOf ?? [])].filter((s) => s.properties);
  if (shapes.length) {
    const seen = new Set<string>();
    for (const shape of shapes)
      for (const [key, child] of Object.entries(shape.properties!)) {
        const at = path ? `${path}.${key}` : key;
        if (seen.has(at)) continue;
        seen.add(at);
        rows.push(
          `| \`${at}\` | ${cell(typeOf(child))} | ${child.default !== undefined ? `\`${cell(JSON.stringify(child.default))}\`` : ''} | ${cell(child.description)} |`,
        );
        keyRows(child, at, rows, depth + 1);
      }
    return;
  }
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object') keyRows(schema.additionalProperties, `${path}.NAME`, rows, depth + 1);
  else if (schema.type === 'array' && schema.items) keyRows(schema.items, `${path}[]`, rows, depth + 1);
}

/** docs/reference/config.md: every key of the config file from its JSON Schema. */
export function configReference(): string {
  const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const rows: string[] = [];
  keyRows(schema, '', rows, 0);
  return `${[
    GENERATED('the config schema (src/config/schema/schema.ts)'),
    '# Config reference',
    '',
    'Every key of the config file (`mcpkit.yaml`), from the JSON Schema that `mcpkit config schema` prints. `NAME` stands for a name you choose (a server, a view, a client); `[]` for each item of a list. Values may use `${VAR}` and `${VAR:-default}`.',
    '',
    '| key | type | default | description |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n')}\n`;
}

/** docs/reference/errors.md: the closed list of error codes and the exit codes. */
export function errorsReference(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, info]) => `| \`${code}\` | ${info.exit} | ${cell(info.meaning)} | ${cell(info.hint)} |`);
  return `${[
    GENERATED('src/core/errors.ts'),
    '# Errors and exit codes',
    '',
    'Every error carries one of these codes; the list is closed. In a terminal an error prints as `Error [CODE]: message` and a `Hint:` line on stderr (with `--json`, `{"error": {...}}` on stdout); over MCP it is a result with `isError: true` and the error object as its structured content.',
    '',
    'Exit codes: `0` done; `1` a tool error (the codes with exit 1 below, and a search that found nothing, as rg); `2` bad usage (the codes with exit 2, an unknown command or flag, and a search that searched no file, as rg); `128 + N` ended by signal N.',
    '',
    '| code | exit | meaning | typical hint |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n')}\n`;
}

/** Every reference file and its text, by path from the project's root. */
export function referenceFiles(root: string): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, ManifestCommand> };
  return {
    'docs/reference/cli.md': cliReference(manifest),
    'docs/reference/config.md': configReference(),
    'docs/reference/errors.md': errorsReference(),
  };
}

if (process.argv.includes('--write')) {
  const root = join(import.meta.dirname, '..');
  for (const [path, text] of Object.entries(referenceFiles(root))) writeFileSync(join(root, path), text);
}
