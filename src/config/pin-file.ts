import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';
import { ToolError } from '../core/errors.js';
import { atomicWrite } from './atomic-write.js';
import { acquireLock } from './lock.js';

/**
 * The lock file of approved tool definitions (tool pinning), beside the config: `mcpkit.yaml`
 * has `mcpkit.lock.yaml`, `config.yaml` has `config.lock.yaml`. Meant to be committed with the
 * config, like a package lockfile: servers and tools in name order, one definition per tool, so
 * that a change reads as a diff. Written under a lock and atomically, so concurrent approvals
 * each land whole.
 */
export interface PinFile {
  version: 1;
  /** Server name -> the upstream's tool name -> its pin. */
  servers: Record<string, Record<string, PinnedTool>>;
}

/** What of an upstream tool is pinned: everything that reaches the model or decides a call. */
export interface PinnedDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  icons?: unknown;
  _meta?: unknown;
}

export interface PinnedTool {
  sha256: string;
  definition: PinnedDefinition;
}

const HEADER = `# mcpkit tool pins: the approved definition of each upstream tool, by server.
# Commit this file beside the config. serve withholds a tool whose definition differs
# (pinning: enforce). Review with "mcpkit server diff NAME", approve with "mcpkit server approve NAME".
`;

/** The lock file of a config file. */
export function pinFilePath(configPath: string): string {
  const name = basename(configPath).replace(/\.ya?ml$/i, '');
  return join(dirname(configPath), `${name}.lock.yaml`);
}

export function emptyPins(): PinFile {
  return { version: 1, servers: {} };
}

/** The pins on disk; none when there is no file yet. A file that cannot be read as pins is an error naming it. */
export function readPins(path: string): PinFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyPins();
    throw new ToolError('FILE_ACCESS', `Cannot read the tool pins ${path}: ${(error as Error).message}.`, { details: { file: path } });
  }
  return pinsFromText(text, path);
}

export function pinsFromText(text: string, path: string): PinFile {
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw unreadable(path, (error as Error).message);
  }
  if (data === null || data === undefined) return emptyPins();
  const file = data as Partial<PinFile>;
  if (typeof data !== 'object' || file.version !== 1 || typeof file.servers !== 'object' || file.servers === null) {
    throw unreadable(path, 'it needs version: 1 and a servers mapping');
  }
  return { version: 1, servers: file.servers };
}

function unreadable(path: string, why: string): ToolError {
  return new ToolError('CONFIG_INVALID', `The tool pins ${path} cannot be read: ${why}.`, {
    details: { file: path },
    hint: 'Restore it from version control, or delete it: every server is then pinned again on first use.',
  });
}

/** The file's text: servers and tools sorted by name, so the same pins always read the same. */
export function pinsText(pins: PinFile): string {
  const servers = Object.fromEntries(
    Object.keys(pins.servers)
      .sort()
      .map((server) => [
        server,
        Object.fromEntries(
          Object.keys(pins.servers[server]!)
            .sort()
            .map((tool) => [tool, pins.servers[server]![tool]!]),
        ),
      ]),
  );
  return `${HEADER}${stringify({ version: 1, servers }, { lineWidth: 0 })}`;
}

/** Changes the pins under the lock and writes them atomically; `change` returns false to write nothing. */
export async function updatePins(path: string, change: (pins: PinFile) => boolean): Promise<PinFile> {
  const lock = await acquireLock(`${path}.lock`);
  try {
    const pins = readPins(path);
    if (!change(pins)) return pins;
    if (!lock.held()) throw new ToolError('CONFLICT', `Lost the lock on ${path} while writing; the pins were not changed.`, { hint: 'Run the command again.' });
    atomicWrite(path, pinsText(pins), { mode: 0o644 });
    return pins;
  } finally {
    lock.release();
  }
}
