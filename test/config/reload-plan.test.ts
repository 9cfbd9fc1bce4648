import { describe, expect, it } from 'vitest';
import { describePlan, planReload, type ReloadPlan } from '../../src/config/reload-plan.js';
import { stableJson } from '../../src/core/stable-json.js';
import { configSchema, type McpkitConfig } from '../../src/config/schema/schema.js';

const config = (raw: object, unusable?: Record<string, string[]>): McpkitConfig =>
  Object.assign(configSchema.parse(raw), unusable ? { unusable } : {}) as McpkitConfig;

const mem = { command: 'node', args: ['memory.js'] };
const fs = { command: 'node', args: ['fs.js', '/tmp'] };
const remote = { url: 'https://example.com/mcp' };

const empty: ReloadPlan = {
  servers: { added: [], removed: [], restarted: [] },
  views: { added: [], removed: [], changed: [] },
  needsRestart: [],
  settings: [],
};
const plan = (parts: { servers?: Partial<ReloadPlan['servers']>; views?: Partial<ReloadPlan['views']>; needsRestart?: string[]; settings?: string[] }) => ({
  servers: { ...empty.servers, ...parts.servers },
  views: { ...empty.views, ...parts.views },
  needsRestart: parts.needsRestart ?? [],
  settings: parts.settings ?? [],
});

describe('planReload: what a reload changes', () => {
  it.each([
    ['nothing', { mcp_servers: { mem } }, { mcp_servers: { mem } }, plan({})],
    ['keys in another order', { mcp_servers: { mem: { args: ['memory.js'], command: 'node' } } }, { mcp_servers: { mem } }, plan({})],
    ['a server added', { mcp_servers: { mem } }, { mcp_servers: { mem, fs } }, plan({ servers: { added: ['fs'] } })],
    ['a server removed', { mcp_servers: { mem, fs } }, { mcp_servers: { mem } }, plan({ servers: { removed: ['fs'] } })],
    ['a server disabled', { mcp_servers: { mem, fs } }, { mcp_servers: { mem, fs: { ...fs, disabled: true } } }, plan({ servers: { removed: ['fs'] } })],
    ['a server enabled', { mcp_servers: { fs: { ...fs, disabled: true } } }, { mcp_servers: { fs } }, plan({ servers: { added: ['fs'] } })],
    ['its args changed', { mcp_servers: { mem } }, { mcp_servers: { mem: { ...mem, args: ['other.js'] } } }, plan({ servers: { restarted: ['mem'] } })],
    ['its env changed', { mcp_servers: { mem } }, { mcp_servers: { mem: { ...mem, env: { A: '1' } } } }, plan({ servers: { restarted: ['mem'] } })],
    [
      'its reconnect schedule changed',
      { mcp_servers: { mem } },
      { mcp_servers: { mem: { ...mem, reconnect: { attempts: 3 } } } },
      plan({ servers: { restarted: ['mem'] } }),
    ],
    ['its url changed', { mcp_servers: { r: remote } }, { mcp_servers: { r: { url: 'https://example.org/mcp' } } }, plan({ servers: { restarted: ['r'] } })],
    [
      'its headers changed',
      { mcp_servers: { r: remote } },
      { mcp_servers: { r: { ...remote, headers: { X: '1' } } } },
      plan({ servers: { restarted: ['r'] } }),
    ],
    ['its auth changed', { mcp_servers: { r: remote } }, { mcp_servers: { r: { ...remote, auth: 'oauth' } } }, plan({ servers: { restarted: ['r'] } })],
    ['its timeout changed', { mcp_servers: { mem } }, { mcp_servers: { mem: { ...mem, timeout_ms: 5000 } } }, plan({ servers: { restarted: ['mem'] } })],
    ['its protocol pinned', { mcp_servers: { mem } }, { mcp_servers: { mem: { ...mem, protocol: '2026-07-28' } } }, plan({ servers: { restarted: ['mem'] } })],
    ['made per_client', { mcp_servers: { mem } }, { mcp_servers: { mem: { ...mem, per_client: true } } }, plan({ servers: { restarted: ['mem'] } })],
    [
      "a client's own credentials for it changed (its connections are made with them)",
      { mcp_servers: { mem, fs }, serve: { clients: { a: { token: 't', credentials: { mem: { env: { K: '1' } } } } } } },
      { mcp_servers: { mem, fs }, serve: { clients: { a: { token: 't', credentials: { mem: { env: { K: '2' } } } } } } },
      plan({ servers: { restarted: ['mem'] }, settings: ['serve.clients'] }),
    ],
    // Shaping is the views' business: the connection stays.
    ['its filter changed', { mcp_servers: { mem } }, { mcp_servers: { mem: { ...mem, filter: [{ exclude: 'x' }] } } }, plan({})],
    ['its tool allow-list changed', { mcp_servers: { mem } }, { mcp_servers: { mem: { ...mem, tools: { read_graph: null } } } }, plan({})],
    ['its description changed', { mcp_servers: { mem } }, { mcp_servers: { mem: { ...mem, description: 'notes' } } }, plan({})],
    ['a view added', { mcp_servers: { mem } }, { mcp_servers: { mem }, tool_views: { v: { servers: ['mem'] } } }, plan({ views: { added: ['v'] } })],
    ['a view removed', { mcp_servers: { mem }, tool_views: { v: { servers: ['mem'] } } }, { mcp_servers: { mem } }, plan({ views: { removed: ['v'] } })],
    [
      'a view changed',
      { mcp_servers: { mem }, tool_views: { v: { servers: ['mem'] } } },
      { mcp_servers: { mem }, tool_views: { v: { servers: ['mem'], exposure: 'search' } } },
      plan({ views: { changed: ['v'] } }),
    ],
    [
      'the filter of a server a view names',
      { mcp_servers: { mem, fs }, tool_views: { a: { servers: ['mem'] }, b: { servers: ['fs'] } } },
      { mcp_servers: { mem: { ...mem, filter: [{ exclude: 'x' }] }, fs }, tool_views: { a: { servers: ['mem'] }, b: { servers: ['fs'] } } },
      plan({ views: { changed: ['a'] } }),
    ],
    [
      'a composite tool, which every view may name',
      { mcp_servers: { mem }, tool_views: { v: { servers: ['mem'] } } },
      { mcp_servers: { mem }, tool_views: { v: { servers: ['mem'] } }, composite_tools: { c: { chain: [{ tool: 'mem.read_graph' }] } } },
      plan({ views: { changed: ['v'] } }),
    ],
    ['the token', { serve: { token: 'a' } }, { serve: { token: 'b' } }, plan({ settings: ['serve.token'] })],
    ['the port', { serve: { port: 8000 } }, { serve: { port: 9000 } }, plan({ needsRestart: ['serve.port'] })],
    ['the host and the body limit', {}, { serve: { host: '0.0.0.0', max_body_bytes: 10 } }, plan({ needsRestart: ['serve.host', 'serve.max_body_bytes'] })],
    ['retrieve roots', {}, { retrieve: { roots: { docs: './docs' } } }, plan({ settings: ['retrieve'] })],
    ['arango settings', {}, { arango: { url: 'http://db:8529' } }, plan({ settings: ['arango'] })],
    [
      'a client removed (its access, not nothing)',
      { serve: { clients: { a: { token: 'x' }, b: { token: 'y' } } } },
      { serve: { clients: { a: { token: 'x' } } } },
      plan({ settings: ['serve.clients'] }),
    ],
    [
      "an upstream's limits, the tasks, code mode",
      { mcp_servers: { mem } },
      { mcp_servers: { mem }, serve: { upstream_limits: { mem: { rate: '5/s' } }, tasks: { after_ms: 100 }, code: { timeout_ms: 500 } } },
      plan({ settings: ['serve.upstream_limits', 'serve.tasks', 'serve.code'] }),
    ],
  ])('%s', (_what, before, after, expected) => {
    expect(planReload(config(before), config(after))).toEqual(expected);
  });

  it('restarts a server that was set aside for its problems once they are fixed, and the other way round', () => {
    const before = config({ mcp_servers: { mem } }, { 'mcp_servers.mem': ['env.TOKEN: ${TOKEN} is not set'] });
    const after = config({ mcp_servers: { mem } });
    expect(planReload(before, after).servers.restarted).toEqual(['mem']);
    expect(planReload(after, before).servers.restarted).toEqual(['mem']);
  });
});

describe('describePlan', () => {
  it.each([
    [empty, true, 'nothing served changed'],
    [plan({ servers: { added: ['a', 'b'] } }), false, 'servers added: a, b'],
    [plan({ servers: { removed: ['a'], restarted: ['b'] } }), false, 'servers removed: a; servers restarted: b'],
    [plan({ views: { added: ['v'], changed: ['w'] } }), false, 'views added: v; views changed: w'],
    [plan({ settings: ['serve.token'], needsRestart: ['serve.port'] }), false, 'settings changed: serve.token; needs a restart to apply: serve.port'],
  ])('%j', (p, _empty, line) => {
    expect(describePlan(p)).toBe(line);
  });
});

describe('stableJson', () => {
  it.each([
    [{ a: 1, b: 2 }, { b: 2, a: 1 }, true],
    [{ a: { c: 1, d: [2, 1] } }, { a: { d: [2, 1], c: 1 } }, true],
    [{ a: [1, 2] }, { a: [2, 1] }, false],
    [{ a: undefined }, {}, true],
  ])('%j vs %j', (a, b, equal) => {
    expect(stableJson(a) === stableJson(b)).toBe(equal);
  });
});
