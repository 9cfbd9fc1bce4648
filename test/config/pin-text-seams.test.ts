import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, it, vi } from 'vitest';
import { dropCountsOf, readPins } from '../../src/config/files/pin-file.js';
import { createLogger } from '../../src/core/logger.js';
import { PinKeeper } from '../../src/proxy/pins/pin-keeper.js';
import { tempDir } from '../helpers/cli.js';

// Parses counted, yaml's and the reader of mcpkit's own form's (simple-yaml.ts, when it read the
// text rather than leave it to yaml): a serve reads its lock file's text again and again (with the
// config, when its keeper is made, before each write, at the reload its own write sets off), and
// parses each text once; what it wrote itself it does not parse at all. Any other text is parsed as before.
const parses = vi.hoisted(() => ({ count: 0 }));
vi.mock('yaml', async (original) => {
  const yaml = await original<typeof import('yaml')>();
  const parse = ((...args: Parameters<typeof yaml.parse>) => {
    parses.count++;
    return yaml.parse(...args);
  }) as typeof yaml.parse;
  return { ...yaml, parse, default: { ...yaml, parse } };
});
vi.mock('../../src/config/files/simple-yaml.js', async (original) => {
  const simple = await original<typeof import('../../src/config/files/simple-yaml.js')>();
  const simpleYamlValue = (text: string): unknown => {
    const value = simple.simpleYamlValue(text);
    if (value !== simple.NOT_SIMPLE) parses.count++;
    return value;
  };
  return { ...simple, simpleYamlValue };
});
const { parse: realParse } = await vi.importActual<typeof import('yaml')>('yaml');

const toolsNamed = (prefix: string): Tool[] => [
  { name: `${prefix}_greet`, description: 'Greets someone.', inputSchema: { type: 'object', properties: { who: { type: 'string' } } } },
  {
    name: `${prefix}_wave`,
    title: 'Wave',
    description: 'Waves. #not-a-comment: "quoted"',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
  },
];

function keeperAt(lock: string) {
  const entry: { added_by?: string; command: string } = { command: 'node' };
  return new PinKeeper(lock, createLogger('silent'), () => {}, {
    entryOf: (server) => (server === 'jobs' ? entry : undefined),
    lockAnswersListings: () => false,
    dropsAtLoad: () => undefined,
  });
}

describe('the lock file parsed once per text', () => {
  it('a keeper that pinned on first use reads back what it wrote without parsing it, and a real edit to the file is parsed and seen', async () => {
    const lock = join(tempDir(), 'mcpkit.lock.yaml');
    const tools = toolsNamed('own');
    const keeper = keeperAt(lock);
    expect(keeper.admit('jobs', tools, 'enforce', true, '').firstUse).toBe(true);
    await keeper.writePending();
    const before = parses.count;
    // The reload that serve's own write sets off: nothing changed, and the file was not parsed.
    expect(keeper.refresh()).toEqual([]);
    expect(parses.count).toBe(before);
    // What the keeper holds is what the file says, as a parse of it gives.
    const inFile = realParse(readFileSync(lock, 'utf8')) as { servers: Record<string, unknown> };
    expect(keeper.of('jobs')).toStrictEqual(inFile.servers.jobs);
    expect(keeper.admit('jobs', tools, 'enforce').served.map((t) => t.name)).toEqual(tools.map((t) => t.name));

    // A person's edit: one pin's hash changed by hand. It is parsed, and the tool is withheld.
    const edited = readFileSync(lock, 'utf8').replace(/sha256: (\w+)/, 'sha256: 0000$1');
    writeFileSync(lock, edited);
    expect(keeper.refresh()).toEqual(['jobs']);
    expect(parses.count).toBe(before + 1);
    expect(keeper.admit('jobs', tools, 'enforce').served.map((t) => t.name)).toEqual([tools[1]!.name]);
  });

  it('a text read with the config and again by the keeper is parsed once; each caller may change its copy', () => {
    const lock = join(tempDir(), 'mcpkit.lock.yaml');
    const text = `version: 1\nservers:\n  jobs:\n    once_greet:\n      sha256: abc\n      definition: { name: once_greet, inputSchema: { type: object } }\napprovals_dropped:\n  gone: 2\n`;
    writeFileSync(lock, text);
    const before = parses.count;
    expect(dropCountsOf(text, lock)).toEqual({ gone: 2 });
    const first = readPins(lock);
    const second = readPins(lock);
    expect(parses.count).toBe(before + 1);
    expect(first).toEqual(second);
    delete first.servers.jobs;
    expect(readPins(lock).servers.jobs).toBeDefined();
    writeFileSync(lock, text.replace('gone: 2', 'gone: 3'));
    expect(dropCountsOf(readFileSync(lock, 'utf8'), lock)).toEqual({ gone: 3 });
    expect(parses.count).toBe(before + 2);
  });
});
