import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { ToolError } from '../../core/errors.js';
import { atomicWrite } from './atomic-write.js';
import { acquireLock } from './lock.js';
import { parsedPinText, writtenPinText } from './parsed-pin-text.js';

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
  /** The same for what else of a server reaches an agent: prompts by name, resources by URI, templates by URI template. */
  prompts?: Record<string, Record<string, PinnedTool>>;
  resources?: Record<string, Record<string, PinnedTool>>;
  resource_templates?: Record<string, Record<string, PinnedTool>>;
  /**
   * Per server, the client capabilities ("" for none; "elicitation,sampling") its tools were listed
   * and pinned under: a server may list more tools to a client that declares more.
   */
  capability_sets?: Record<string, string[]>;
  /**
   * Per server, how many times its approvals were dropped (a server replaced or removed:
   * dropServerPins). A process that pinned a server on first use writes those pins only if the
   * count is still the one it read: pins of the server that was there before never land after
   * the drop, whichever process made them.
   */
  approvals_dropped?: Record<string, number>;
}

/** The sections of the lock file: `servers` holds the tools (it came first), the others are named for what they hold. */
export const PIN_SECTIONS = { tools: 'servers', prompts: 'prompts', resources: 'resources', resource_templates: 'resource_templates' } as const;

export type PinSectionKind = keyof typeof PIN_SECTIONS;

/** The pins of one kind, by server (created empty in `pins` when absent). */
export function sectionOf(pins: PinFile, kind: PinSectionKind): Record<string, Record<string, PinnedTool>> {
  return (pins[PIN_SECTIONS[kind]] ??= {});
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
# (pinning: enforce). Review with "mcpkit server diff NAME", approve what it showed with "mcpkit server approve NAME --digest DIGEST" (diff prints the digest).
`;

/** The lock file of a config file. */
export { pinFilePath } from './pin-path.js';

export function emptyPins(): PinFile {
  return { version: 1, servers: {} };
}

/** The pins on disk; none when there is no file yet. A file that cannot be read as pins is an error naming it. */
export function readPins(path: string): PinFile {
  return readPinsWithText(path).pins;
}

/** The pins on disk and the text they were read from ("" when there is no file yet): one read for both. */
export function readPinsWithText(path: string): { pins: PinFile; text: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { pins: emptyPins(), text: '' };
    throw new ToolError('FILE_ACCESS', `Cannot read the tool pins ${path}: ${(error as Error).message}.`, { details: { file: path } });
  }
  return { pins: pinsFromText(text, path), text };
}

export function pinsFromText(text: string, path: string): PinFile {
  let data: unknown;
  try {
    data = parsedPinText(text);
  } catch (error) {
    throw unreadable(path, (error as Error).message);
  }
  if (data === null || data === undefined) return emptyPins();
  const file = data as Partial<PinFile>;
  if (typeof data !== 'object' || file.version !== 1 || typeof file.servers !== 'object' || file.servers === null) {
    throw unreadable(path, 'it needs version: 1 and a servers mapping');
  }
  const out: PinFile = { version: 1, servers: file.servers };
  for (const section of ['prompts', 'resources', 'resource_templates'] as const) {
    const value = file[section];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'object' || Array.isArray(value)) throw unreadable(path, `${section} must be a mapping of servers`);
    out[section] = value;
  }
  const sets = file.capability_sets;
  if (sets !== undefined && sets !== null) {
    if (typeof sets !== 'object' || Array.isArray(sets) || !Object.values(sets).every((v) => Array.isArray(v) && v.every((x) => typeof x === 'string')))
      throw unreadable(path, 'capability_sets must map each server to a list of capability sets');
    out.capability_sets = sets;
  }
  const drops = file.approvals_dropped;
  if (drops !== undefined && drops !== null) {
    if (typeof drops !== 'object' || Array.isArray(drops) || !Object.values(drops).every((n) => Number.isSafeInteger(n) && (n as number) >= 0))
      throw unreadable(path, 'approvals_dropped must map each server to a count');
    out.approvals_dropped = drops;
  }
  return out;
}

function unreadable(path: string, why: string): ToolError {
  return new ToolError('CONFIG_INVALID', `The tool pins ${path} cannot be read: ${why}.`, {
    details: { file: path },
    hint: 'Restore it from version control, or delete it: every server is then pinned again on first use.',
  });
}

/** The file's text: sections, servers and items sorted by name, so the same pins always read the same. */
export function pinsText(pins: PinFile): string {
  return textOf(pinsBody(pins));
}

function textOf(body: object): string {
  return `${HEADER}${stringify(body, { lineWidth: 0 })}`;
}

/** What the file's text is the YAML of. */
function pinsBody(pins: PinFile): object {
  const sorted = (byServer: Record<string, Record<string, PinnedTool>>) =>
    Object.fromEntries(
      Object.keys(byServer)
        .sort()
        .map((server) => [
          server,
          Object.fromEntries(
            Object.keys(byServer[server] ?? {})
              .sort()
              .map((key) => [key, byServer[server]![key]!]),
          ),
        ]),
    );
  const others = (['prompts', 'resources', 'resource_templates'] as const).filter((section) => Object.keys(pins[section] ?? {}).length);
  const sets = Object.keys(pins.capability_sets ?? {})
    .sort()
    .map((server) => [server, [...new Set(pins.capability_sets![server])].sort()] as const);
  const body = {
    version: 1,
    servers: sorted(pins.servers),
    ...Object.fromEntries(others.map((section) => [section, sorted(pins[section]!)])),
    ...(sets.length ? { capability_sets: Object.fromEntries(sets) } : {}),
    ...(Object.keys(pins.approvals_dropped ?? {}).length ? { approvals_dropped: sortedKeys(pins.approvals_dropped!) } : {}),
  };
  return body;
}

function sortedKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, record[key]!]),
  );
}

/** The servers whose drop count differs between two readings of PinFile.approvals_dropped. Pure. */
export function dropsBetween(before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((server) => (before[server] ?? 0) !== (after[server] ?? 0));
}

/** How many times the server's approvals were dropped (PinFile.approvals_dropped). */
export function dropsOf(pins: PinFile, server: string): number {
  return pins.approvals_dropped?.[server] ?? 0;
}

/**
 * The drop counts of a lock file's text (PinFile.approvals_dropped; undefined: no text). A text
 * that cannot be read as pins counts none: every drop the file counts later is then taken as
 * made since (fail closed).
 */
export function dropCountsOf(text: string | undefined, path: string): Record<string, number> | undefined {
  if (text === undefined) return undefined;
  try {
    return { ...pinsFromText(text, path).approvals_dropped };
  } catch {
    return {};
  }
}

/** Changes the pins under the lock and writes them atomically; `change` returns false to write nothing. */
export async function updatePins(path: string, change: (pins: PinFile) => boolean): Promise<PinFile> {
  const lock = await acquireLock(`${path}.lock`);
  try {
    const pins = readPins(path);
    if (!change(pins)) return pins;
    if (!lock.held()) throw new ToolError('CONFLICT', `Lost the lock on ${path} while writing; the pins were not changed.`, { hint: 'Run the command again.' });
    const body = pinsBody(pins);
    const text = textOf(body);
    atomicWrite(path, text, { mode: 0o644 });
    // The reads that follow (the reload this write sets off in every serve watching the file, this one's included) need not parse it again.
    writtenPinText(text, body);
    return pins;
  } finally {
    lock.release();
  }
}

/**
 * Drops every pin of these servers (tools, prompts, resources, templates, capability sets); the
 * tool pins each had. Where a server had pins, or an entry was there (`servers` maps the name to
 * true: replaced or removed), the drop is counted, so that first-use pins of what was there,
 * still on their way to the file in some process, are never written after it
 * (PinFile.approvals_dropped). A name new to the config with nothing pinned leaves the file as it is.
 */
export async function dropServerPins(path: string, servers: ReadonlyMap<string, boolean>): Promise<Record<string, number>> {
  const dropped: Record<string, number> = {};
  await updatePins(path, (pins) => {
    let changed = false;
    for (const [server, wasThere] of servers) {
      let had = wasThere || pins.capability_sets?.[server] !== undefined;
      for (const kind of ['tools', 'prompts', 'resources', 'resource_templates'] as const) {
        const section = sectionOf(pins, kind);
        if (!section[server]) continue;
        if (kind === 'tools') dropped[server] = Object.keys(section[server]).length;
        delete section[server];
        had = true;
      }
      if (!had) continue;
      delete pins.capability_sets?.[server];
      (pins.approvals_dropped ??= {})[server] = dropsOf(pins, server) + 1;
      changed = true;
    }
    return changed;
  });
  return dropped;
}
