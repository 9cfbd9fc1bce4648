import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/audit/audit-log.js';
import { createRuntime } from '../../src/app/runtime.js';
import { CLOSE_GRACE_MS } from '../../src/mcp/pipeline/port-calls.js';
import { terminalPort } from '../../src/mcp/pipeline/terminal-calls.js';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { writeConfig } from '../helpers/upstreams.js';

/**
 * A terminal's call that its port gives up on while the port's audit log is still opening (the
 * log opens with the first call, once the config is read) still has its line written, as
 * cancelled, before the port's close returns; it is never run after. The config is read from a
 * real FIFO, so that its read, and the log's opening, last until the test writes it.
 */
describe('a terminal port closed while its audit log is opening', () => {
  it('writes the cut-off call as cancelled before its close returns, and never runs it', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'mcpkit.yaml');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const audit = join(dir, 'audit.jsonl');
    const reading = createRuntime({ configFlag: fifo, surface: 'cli', env: cleanEnv() });
    const serving = createRuntime({ configFlag: writeConfig({ mcp_servers: {} }), surface: 'cli', env: cleanEnv() });
    let written: Promise<void> | undefined;
    const writeTheConfig = () => (written ??= writeFile(fifo, `serve:\n  audit_log: ${audit}\n`));
    try {
      await serving.withHub(undefined, async (hub) => {
        const port = terminalPort(reading, hub);
        const called = port.call({ name: 'no_such_tool', arguments: {} }).then(
          () => 'ran',
          (error: { code?: string }) => error.code,
        );
        const closing = port.close();
        // After the port's grace has ended (a timer set after its own): the config, and the log, come only now.
        setTimeout(() => void writeTheConfig(), CLOSE_GRACE_MS + 500);
        await closing;
        const lines = existsSync(audit)
          ? readFileSync(audit, 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((line) => JSON.parse(line) as AuditEntry)
          : [];
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatchObject({ name: 'no_such_tool', surface: 'cli', client: 'terminal', error_code: 'CANCELLED' });
        expect(await called).toBe('UNAVAILABLE');
      });
    } finally {
      // A FIFO never written would hold a thread of the pool for good.
      await writeTheConfig();
      await Promise.allSettled([reading.close(), serving.close()]);
    }
  }, 60_000);
});
