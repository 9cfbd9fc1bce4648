import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ROOT, runCli } from '../helpers/cli.js';
import { alive, waitFor } from '../helpers/upstreams.js';

function stateOf(pid: number): string {
  try {
    return /State:\s+(\S)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '';
  } catch {
    return '';
  }
}

describe('the suite checks that it cleaned up after itself (scripts/run-tests.mjs)', () => {
  it('fails a run that leaves a temp folder or a process behind, and ends the process', async () => {
    const fixture = join(ROOT, 'test/fixtures/leaky');
    const r = await runCli(['--root', fixture, '--config', join(fixture, 'vitest.config.ts')], { entry: join(ROOT, 'scripts/run-tests.mjs'), cwd: ROOT });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/left 1 temp folder\(s\) behind[\s\S]*mcpkit-test-leaked-/);
    expect(r.stderr).toMatch(/left 1 process\(es\) running[\s\S]*setInterval/);
    const pid = Number(/(\d+): .*setInterval/.exec(r.stderr)![1]);
    // Ended by the check (a killed process may take a moment to be reaped).
    expect(await waitFor(() => !alive(pid) || /^Z/m.test(stateOf(pid)), 5000)).toBe(true);
  }, 60_000);
});
