import { basename, dirname, isAbsolute } from 'node:path';
import type { ClientFlavour } from './client-variables.js';

/**
 * Other clients start a project's stdio server in the project's folder, so `node server.js` in
 * `.vscode/mcp.json` means the workspace's `server.js`. mcpkit starts servers in its own folder;
 * an imported entry that names a relative script keeps the folder it meant as `cwd`. Pure.
 */

/** An argument that names a file by a relative path: `server.js`, `./bin/x`, `src/main.py`; not a flag, a package, a URL or a placeholder. */
export function isRelativeScript(arg: string): boolean {
  if (arg === '' || arg.startsWith('-') || arg.includes('${') || isAbsolute(arg) || arg.startsWith('~') || /^[a-z][a-z0-9+.-]*:/i.test(arg)) return false;
  if (arg.startsWith('./') || arg.startsWith('../')) return true;
  // A package name (`@scope/pkg`, `pkg@1.2`) has a slash or dot too: only a file with a script's extension counts.
  if (arg.startsWith('@')) return false;
  return /\.(?:[cm]?[jt]s|py|rb|sh|php|pl|lua|jar|exe)$/i.test(arg);
}

/** The folder a client runs a project's stdio servers in: the workspace for VS Code and Cursor, the file's folder for `.mcp.json`; none known for Claude Desktop. */
export function scriptFolderOf(file: string, flavour: ClientFlavour, workspaceFolder: string): string | undefined {
  if (flavour === 'vscode' || flavour === 'cursor') return workspaceFolder;
  if (flavour === 'claude-code' && basename(file) === '.mcp.json') return dirname(file);
  return undefined;
}

/** The entry with `cwd` set to `folder` when it runs a relative script and names no `cwd` of its own. */
export function keepScriptFolder(entry: Record<string, unknown>, folder: string | undefined): Record<string, unknown> {
  if (folder === undefined || typeof entry.command !== 'string' || entry.cwd !== undefined) return entry;
  const args = Array.isArray(entry.args) ? entry.args.filter((a): a is string => typeof a === 'string') : [];
  return [entry.command, ...args].some(isRelativeScript) ? { ...entry, cwd: folder } : entry;
}
