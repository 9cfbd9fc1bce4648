import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LiveConfig } from '../../src/app/live-config.js';
import type { ReloadPlan } from '../../src/config/reload-plan.js';
import { tempDir } from '../helpers/cli.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function following(text: string, accept: (config: unknown) => Promise<void> = async () => {}) {
  const path = join(tempDir(), 'mcpkit.yaml');
  writeFileSync(path, text);
  const announced: string[] = [];
  const applied: ReloadPlan[] = [];
  const problems: string[] = [];
  const live = new LiveConfig({ location: { path, source: 'flag' }, env: {}, logger: silent, announce: (line) => announced.push(line) });
  live.problems.on((p) => problems.push(p));
  await live.follow(accept, async (_before, _after, plan) => void applied.push(plan));
  return { live, path, announced, applied, problems };
}

const MEM = 'mcp_servers:\n  mem:\n    command: node\n';

describe('LiveConfig: the one owner of the current config', () => {
  it('applies a changed file: a new generation, the plan, one line', async () => {
    const { live, path, announced, applied } = await following(MEM);
    expect(live.status().generation).toBe(1);
    writeFileSync(path, `${MEM}  fs:\n    command: node\n`);
    const report = await live.reload('test');
    expect(report).toMatchObject({ outcome: 'applied', generation: 2 });
    expect(applied[0]!.servers.added).toEqual(['fs']);
    expect(Object.keys((await live.get()).mcp_servers)).toEqual(['mem', 'fs']);
    expect(announced).toEqual(['config reloaded (generation 2): servers added: fs']);
    expect(live.status().last_reload).toMatchObject({ reason: 'test', outcome: 'applied' });
  });

  it('does nothing for a file whose text is the one served', async () => {
    const { live, applied } = await following(MEM);
    expect((await live.reload('test')).outcome).toBe('unchanged');
    expect(applied).toHaveLength(0);
  });

  it.each([
    ['invalid YAML', (path: string) => writeFileSync(path, 'mcp_servers: [oops'), /not applied.*generation 1/s],
    ['an unknown top-level key', (path: string) => writeFileSync(path, `${MEM}surprise: 1\n`), /surprise/],
    ['a deleted file', (path: string) => rmSync(path), /is gone/],
    ['an emptied file', (path: string) => writeFileSync(path, ''), /is empty/],
    ['a file of blank lines', (path: string) => writeFileSync(path, '\n  \n'), /is empty/],
  ])('keeps the last good config for %s, and says so once', async (_what, spoil, why) => {
    const { live, path, problems, applied } = await following(MEM);
    spoil(path);
    expect((await live.reload('test')).outcome).toBe('kept');
    expect((await live.reload('again')).outcome).toBe('kept');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(why);
    expect(applied).toHaveLength(0);
    expect(Object.keys((await live.get()).mcp_servers)).toEqual(['mem']);
    expect(live.status().generation).toBe(1);
  });

  it('keeps the last good config when the front end refuses it (serve: an unknown group)', async () => {
    const { live, path, problems } = await following(MEM, async () => {
      throw new Error('serve.groups names unknown group(s) "nope"');
    });
    writeFileSync(path, `${MEM}serve:\n  groups: [nope]\n`);
    expect((await live.reload('test')).outcome).toBe('kept');
    expect(problems[0]).toMatch(/unknown group/);
  });

  it('runs reloads one at a time: two at once apply the file once', async () => {
    const { live, path, applied } = await following(MEM);
    writeFileSync(path, `${MEM}  a:\n    command: node\n`);
    const [first, second] = await Promise.all([live.reload('one'), live.reload('two')]);
    expect([first.outcome, second.outcome]).toEqual(['applied', 'unchanged']);
    expect(applied).toHaveLength(1);
    expect(live.status().generation).toBe(2);
  });
});
