import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/app/runtime.js';
import { inScope, processScope } from '../../src/cli/terminal/command-scope.js';
import { throughDaemon } from '../../src/daemon/client/use.js';

/** A runtime that fails the test if anything of it is read: the guard decides before any of it is used. */
const untouchable = new Proxy({} as Runtime, {
  get: (_target, key) => {
    throw new Error(`the runtime's ${String(key)} was read`);
  },
});

describe('throughDaemon: the one guard against the daemon asking itself', () => {
  it('a command the daemon runs for a client does the work where it is, without looking for a daemon', async () => {
    const scope = { ...processScope(), hosted: true, daemon: {} as Runtime };
    await expect(inScope(scope, () => throughDaemon(untouchable, { op: 'list-upstream', skip: [] }))).resolves.toBeUndefined();
  });

  it('a command of the terminal does look for its daemon (reads its runtime)', async () => {
    await expect(inScope({ ...processScope(), hosted: true }, () => throughDaemon(untouchable, { op: 'list-upstream', skip: [] }))).rejects.toThrow(
      /the runtime's env was read/,
    );
  });
});
