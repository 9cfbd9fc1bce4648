import { afterAll } from 'vitest';
import { createLogger } from '../../src/core/logger.js';
import { startHttpServe, type HttpServeHandle, type ServeOptions } from '../../src/mcp/run-serve.js';
import type { ReloadReport } from '../../src/app/live-config.js';

/**
 * `serve --http` in the test's own process: the same code `mcpkit serve --http` runs, without
 * a process start (most of a process test's time) and with its lines and reloads in reach. What a
 * process alone shows (argv, signals, exit codes, stdio framing) is left to the process tests.
 * Every server started here is closed after the test file, pass or fail.
 */
export interface InProcessServe extends HttpServeHandle {
  /** serve's own lines and its log (warnings and up), as they would reach stderr. */
  lines: string[];
  /** Every reload's report, in order. */
  reloads: ReloadReport[];
  /** Resolves with the next reload's report. */
  nextReload(): Promise<ReloadReport>;
}

const started = new Set<HttpServeHandle>();
afterAll(async () => {
  await Promise.allSettled([...started].map((h) => h.close()));
  started.clear();
});

export async function serveHttpInProcess(config: string, flags: Partial<ServeOptions> = {}): Promise<InProcessServe> {
  const lines: string[] = [];
  const logger = createLogger('warn', (line) => void lines.push(line.trimEnd()));
  const handle = await startHttpServe(
    { configFlag: config, port: 0, version: '0.0.0-test', exposure: 'direct', ...flags, http: true },
    (line) => void lines.push(line),
    logger,
  );
  started.add(handle);
  const reloads: ReloadReport[] = [];
  const waiting: ((report: ReloadReport) => void)[] = [];
  handle.runtime.live.reloaded.on((report) => {
    reloads.push(report);
    for (const resolve of waiting.splice(0)) resolve(report);
  });
  return {
    ...handle,
    lines,
    reloads,
    nextReload: () => new Promise((resolve) => waiting.push(resolve)),
    close: async () => {
      started.delete(handle);
      await handle.close();
    },
  };
}
