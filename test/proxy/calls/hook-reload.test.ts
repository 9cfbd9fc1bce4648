import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HookChain } from '../../../src/proxy/calls/hooks.js';
import { tempDir } from '../../helpers/cli.js';

/** A hook module edited while serve (or the daemon) runs is what the next call runs. */
describe('hooks follow their files', () => {
  const echo = async (args: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: String(args.message) }] });
  const hookText = (suffix: string) => `export function pre_call(args) { return { args: { ...args, message: args.message + '${suffix}' } }; }\n`;

  it('an edit is loaded by the next call; an unchanged file is not loaded again', async () => {
    const dir = tempDir('mcpkit-hook-reload-');
    const file = join(dir, 'hook.mjs');
    writeFileSync(file, hookText(' one'));
    const chain = new HookChain([{ pre_call: 'hook.mjs' }], dir);
    const say = async () => ((await chain.around({ message: 'hi' }, { tool: 'echo' }, echo)).content[0] as { text: string }).text;
    expect(await say()).toBe('hi one');
    const first = (chain as unknown as { loaded: Promise<unknown> }).loaded;
    expect(await say()).toBe('hi one');
    expect((chain as unknown as { loaded: Promise<unknown> }).loaded, 'not loaded again while unchanged').toBe(first);
    writeFileSync(file, hookText(' two, longer'));
    expect(await say()).toBe('hi two, longer');
    // Same size, another time: still seen.
    writeFileSync(file, hookText(' three, longe'));
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(await say()).toBe('hi three, longe');
  });

  it('a module that stops loading fails the call, and its fix is picked up', async () => {
    const dir = tempDir('mcpkit-hook-reload-');
    const file = join(dir, 'hook.mjs');
    writeFileSync(file, hookText(' ok'));
    const chain = new HookChain([{ pre_call: file }], dir);
    await chain.around({ message: 'a' }, { tool: 'echo' }, echo);
    writeFileSync(file, 'export function pre_call( {\n');
    await expect(chain.around({ message: 'a' }, { tool: 'echo' }, echo)).rejects.toMatchObject({ code: 'HOOK_FAILED' });
    writeFileSync(file, hookText(' fixed'));
    expect(((await chain.around({ message: 'a' }, { tool: 'echo' }, echo)).content[0] as { text: string }).text).toBe('a fixed');
  });
});
