import { basename, dirname } from 'node:path';
import { upperSnake } from './import-secrets.js';
import type { ImportResult } from './import-servers.js';

/**
 * The variables other clients write in their MCP configs, in mcpkit's words: VS Code's and
 * Cursor's `${env:NAME}`, `${workspaceFolder}`, `${userHome}`, VS Code's `${input:ID}` (a value it
 * asks for), and Claude Code's `${NAME}` / `${NAME:-default}`, which are mcpkit's own syntax. A
 * variable only the client can fill in (`${command:...}`, `${config:...}`) skips the server, saying
 * so. Pure (paths are computed by the caller from the file's place).
 */
export type ClientFlavour = 'vscode' | 'cursor' | 'claude-code' | 'claude-desktop';

/** Which client wrote a config file, by its name and place, else by its shape. Pure. */
export function flavourOf(file: string, format: 'mcpServers' | 'servers' | 'mcp.servers'): ClientFlavour {
  const name = basename(file);
  const folder = basename(dirname(file));
  if (folder === '.vscode' || (name === 'settings.json' && format !== 'mcpServers')) return 'vscode';
  if (folder === '.cursor') return 'cursor';
  if (name === '.mcp.json' || name === '.claude.json') return 'claude-code';
  return format === 'mcpServers' ? 'claude-desktop' : 'vscode';
}

/** The folder a project config's `${workspaceFolder}` means: the one holding `.vscode` or `.cursor`, else `cwd`. Pure. */
export function workspaceOf(file: string, cwd: string): string {
  const folder = basename(dirname(file));
  return folder === '.vscode' || folder === '.cursor' ? dirname(dirname(file)) : cwd;
}

export interface VariableContext {
  flavour: ClientFlavour;
  workspaceFolder: string;
  home: string;
  /** VS Code's `inputs`: what it asks the person for each `${input:ID}`. */
  inputs?: ReadonlyMap<string, string>;
}

/** A value the client would have asked for, now an environment variable to set. */
export interface AskedValue {
  variable: string;
  input: string;
  description?: string;
}

/** An `${input:ID}`'s variable: MCPKIT-style upper case (`gh-token` -> GH_TOKEN). */
export function inputVariable(id: string): string {
  const name = upperSnake(id);
  return /^[A-Z_]/.test(name) ? name : `INPUT_${name}`;
}

/** Every string of an entry with the client's variables in mcpkit's words; a reason instead when one cannot be. */
export function translateVariables(
  entry: Record<string, unknown>,
  ctx: VariableContext,
): { entry: Record<string, unknown>; asked: AskedValue[] } | { skip: string } {
  // Claude's `${NAME}` is mcpkit's; its `${file:...}` and `${keyring:...}` are plain text there, and stay text here
  // (a project's .mcp.json must not make mcpkit read a file or a keyring secret).
  if (ctx.flavour === 'claude-code' || ctx.flavour === 'claude-desktop') return { entry: secretFormsAsText(entry) as Record<string, unknown>, asked: [] };
  const asked = new Map<string, AskedValue>();
  let refused: string | undefined;
  const one = (text: string): string =>
    text.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
      const [kind, rest] = inner.includes(':') ? [inner.slice(0, inner.indexOf(':')), inner.slice(inner.indexOf(':') + 1)] : [inner, ''];
      if (kind === 'env' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(rest)) return `\${${rest}}`;
      if (inner === 'workspaceFolder') return ctx.workspaceFolder;
      if (inner === 'workspaceFolderBasename') return basename(ctx.workspaceFolder);
      if (inner === 'userHome') return ctx.home;
      if (inner === 'pathSeparator' || inner === '/') return '/';
      if (kind === 'input' && ctx.flavour === 'vscode' && rest) {
        const variable = inputVariable(rest);
        const description = ctx.inputs?.get(rest);
        asked.set(variable, { variable, input: rest, ...(description ? { description } : {}) });
        return `\${${variable}}`;
      }
      refused ??= `it uses ${whole}, which only ${ctx.flavour === 'vscode' ? 'VS Code' : 'Cursor'} can fill in`;
      return whole;
    });
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return one(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  const out = walk(entry) as Record<string, unknown>;
  return refused ? { skip: refused } : { entry: out, asked: [...asked.values()] };
}

/** Every `${file:` and `${keyring:` of a value's strings written `$${`, as text. Pure. */
function secretFormsAsText(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/(?<!\$)\$\{(file|keyring):/g, (_whole, kind: string) => `$\${${kind}:`);
  if (Array.isArray(value)) return value.map(secretFormsAsText);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, secretFormsAsText(v)]));
  return value;
}

/** Every imported server in mcpkit's words: one that cannot be is skipped with why; what the client would have asked for is named once. */
export function translateServers(found: ImportResult, ctx: VariableContext): ImportResult & { asked: AskedValue[] } {
  const skipped = [...found.skipped];
  const asked = new Map<string, AskedValue>();
  const servers = found.servers.flatMap(({ name, entry }) => {
    const translated = translateVariables(entry, ctx);
    if ('skip' in translated) {
      skipped.push({ name, reason: translated.skip });
      return [];
    }
    for (const value of translated.asked) if (!asked.has(value.variable)) asked.set(value.variable, value);
    return [{ name, entry: translated.entry }];
  });
  return { format: found.format, servers, skipped, asked: [...asked.values()] };
}
