import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/audit/audit-log.js';
import { createRuntime } from '../../src/app/runtime.js';
import { createLogger, type Logger } from '../../src/core/logger.js';
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
/**
 * A terminal's runtime whose config is a FIFO (its read, and the audit log's opening, last until
 * `writeTheConfig`), a runtime to serve the hub, and the end of both: the FIFO written if it was
 * not (one never written would hold a thread of the pool for good), then both closed.
 */
function fifoRuntimes(logger?: Logger) {
  const dir = tempDir();
  const fifo = join(dir, 'mcpkit.yaml');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const audit = join(dir, 'audit.jsonl');
  const reading = createRuntime({ configFlag: fifo, surface: 'cli', env: cleanEnv(), ...(logger ? { logger } : {}) });
  const serving = createRuntime({ configFlag: writeConfig({ mcp_servers: {} }), surface: 'cli', env: cleanEnv() });
  let written: Promise<void> | undefined;
  const writeTheConfig = () => (written ??= writeFile(fifo, `serve:\n  audit_log: ${audit}\n`));
  const end = async () => {
    await writeTheConfig();
    await Promise.allSettled([reading.close(), serving.close()]);
  };
  return { audit, reading, serving, writeTheConfig, end };
}

// Each test waits out the port's grace on runtimes and a FIFO of its own: they wait at once.
describe.concurrent('a terminal port closed while its audit log is opening', () => {
  it('writes the cut-off call as cancelled before its close returns, and never runs it', async () => {
    const { audit, reading, serving, writeTheConfig, end } = fifoRuntimes();
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
      await end();
    }
  }, 60_000);

  it('a log whose opening never settles does not hold the close: it returns after its bound, saying what was not written', async () => {
    const lines: string[] = [];
    const { audit, reading, serving, writeTheConfig, end } = fifoRuntimes(createLogger('warn', (line) => void lines.push(line)));
    let timer: NodeJS.Timeout | undefined;
    try {
      await serving.withHub(undefined, async (hub) => {
        const port = terminalPort(reading, hub);
        const called = port.call({ name: 'no_such_tool', arguments: {} }).then(
          () => 'ran',
          (error: { code?: string }) => error.code,
        );
        // The config is not written while the port closes: the log's opening never settles meanwhile.
        // The bound is the grace and the wait for the log (some 6 s); a minute only says it hung.
        const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 60_000)));
        expect(await Promise.race([port.close().then(() => 'closed' as const), hung])).toBe('closed');
        expect(lines.filter((l) => l.includes('the audit log did not open within 3 s'))).toEqual([
          expect.stringContaining('the audit lines of its 1 call(s) were not written'),
        ]);
        expect(lines.some((l) => l.includes('the audit line of no_such_tool was not written'))).toBe(true);
        // The config comes at last: the call, cut off, is never run, and the log that opens late gets no line.
        await writeTheConfig();
        expect(await called).toBe('UNAVAILABLE');
        const auditText = existsSync(audit) ? readFileSync(audit, 'utf8') : '';
        expect(auditText).toBe('');
      });
    } finally {
      clearTimeout(timer);
      await end();
    }
  }, 120_000);
});
