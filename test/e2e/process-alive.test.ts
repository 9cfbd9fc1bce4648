import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { processAlive } from '../../src/core/process-alive.js';
import { spawnTracked, stopChild } from '../helpers/cli.js';
import { waitFor } from '../helpers/upstreams.js';

/**
 * A process that has exited but is not reaped yet (a zombie) has ended: `daemon stop` waits for
 * the daemon to end, and the daemon's parent is gone, so an init that reaps late or never decided
 * how long it waited (seconds here, forever where the first process of a container reaps nothing).
 */
describe('processAlive', () => {
  it('is true for a running process, false once it has exited though no one has reaped it', async () => {
    // sh starts a short child, then becomes a sleep that never reaps it: the child stays a zombie.
    const parent = spawnTracked('sh', ['-c', 'sleep 0.2 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    onTestFinished(() => stopChild(parent));
    let out = '';
    parent.stdout.on('data', (d) => (out += d));
    expect(await waitFor(() => out.includes('\n'), 30_000)).toBe(true);
    const child = Number(out.trim());
    expect(processAlive(parent.pid!)).toBe(true);
    const state = () => /^\d+ \(.*\) (\S)/s.exec(readFileSync(`/proc/${child}/stat`, 'utf8'))?.[1];
    expect(await waitFor(() => state() === 'Z', 30_000)).toBe(true);
    expect(() => process.kill(child, 0), 'a zombie still answers signal 0').not.toThrow();
    expect(processAlive(child)).toBe(false);
    expect(processAlive(parent.pid!)).toBe(true);
  });
});
