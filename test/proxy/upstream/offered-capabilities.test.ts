import { describe, expect, it } from 'vitest';
import { offeredCapabilities } from '../../../src/proxy/upstream/offered-capabilities.js';
import { connectTimeout } from '../../../src/proxy/upstream/upstream-options.js';
import { SERVER_TIMEOUT_MS } from '../../../src/config/schema/defaults.js';

/** What a connection offers its server: what its own client declared (roots by the rule of roots-relay), and for 2026 clients what the bridge answers. */
describe('offeredCapabilities', () => {
  const declared = { sampling: {}, roots: { listChanged: true } };
  it.each<[string, { remote?: boolean } | undefined, 'legacy' | 'modern' | undefined, Record<string, unknown>]>([
    ['shared connections of 2025 clients: nothing', undefined, 'legacy', {}],
    ['a terminal command (no era): nothing', undefined, undefined, {}],
    ['shared connections of 2026 clients: what the bridge answers, not roots', undefined, 'modern', { sampling: {}, elicitation: { form: {}, url: {} } }],
    ['a stdio client of its own: what it declared', {}, 'legacy', declared],
    ['a remote client of its own: not its roots', { remote: true }, 'legacy', { sampling: {} }],
    ['a remote 2026 client of its own: bridged, still not its roots', { remote: true }, 'modern', { sampling: {}, elicitation: { form: {}, url: {} } }],
  ])('%s', (_what, client, clientEra, offered) => {
    const downstream = client && { capabilities: declared, request: async () => ({}), ...client };
    expect(offeredCapabilities({ downstream, config: { command: 'x' }, ...(clientEra ? { clientEra } : {}) })).toEqual(offered);
  });
});

/** How long connecting may take, and the setting a timeout names. */
describe('connectTimeout', () => {
  it.each<[string, { timeout_ms?: number }, { ms: number; why: string } | undefined, { ms: number; why: string }]>([
    ['the default', {}, undefined, { ms: SERVER_TIMEOUT_MS, why: 'mcp_servers.s.timeout_ms' }],
    ['the entry’s timeout_ms', { timeout_ms: 5_000 }, undefined, { ms: 5_000, why: 'mcp_servers.s.timeout_ms' }],
    ['a one-off look’s shorter limit, with its reason', { timeout_ms: 5_000 }, { ms: 2_000, why: 'a name check' }, { ms: 2_000, why: 'a name check' }],
    ['a longer limit leaves the entry’s', { timeout_ms: 5_000 }, { ms: 9_000, why: 'a name check' }, { ms: 5_000, why: 'mcp_servers.s.timeout_ms' }],
  ])('%s', (_what, entry, limit, expected) => {
    expect(connectTimeout({ name: 's', config: { command: 'x', ...entry }, ...(limit ? { limit } : {}) })).toEqual(expected);
  });
});
