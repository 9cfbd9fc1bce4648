import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/core/errors.js';
import type { CatalogEntry } from '../../../src/proxy/catalog/catalog.js';
import { CatalogChanges } from '../../../src/proxy/catalog/catalog-changes.js';
import { refusedServerOf } from '../../../src/proxy/catalog/name-lookup.js';
import { FakeUpstream, tool, viewOf } from '../fake-upstreams.js';
import { waitFor } from '../../helpers/upstreams.js';

const upstream = (name: string, server: string): CatalogEntry => ({ kind: 'upstream', name, server, upstreamName: name, tool: tool(name) });
const composite = (name: string): CatalogEntry => ({ kind: 'composite', name, spec: { steps: [] } as never, tool: tool(name) });

describe('CatalogChanges: names published and gone', () => {
  it('says where a name came from once the kept catalog no longer has it, and nothing while it does', () => {
    const changes = new CatalogChanges(() => {});
    const before = new Map([
      ['a__echo', upstream('a__echo', 'a')],
      ['both', composite('both')],
    ]);
    changes.record(before);
    expect(changes.goneFrom('a__echo', before)).toBeUndefined();
    expect(changes.goneFrom('a__echo', new Map())).toBe('server "a"');
    expect(changes.goneFrom('both', undefined)).toBe('mcpkit');
    expect(changes.goneFrom('never', new Map())).toBeUndefined();
  });

  it('a reload’s new catalog takes over the names the earlier one published, keeping its own', () => {
    const earlier = new CatalogChanges(() => {});
    earlier.record(
      new Map([
        ['x', upstream('x', 'old')],
        ['y', upstream('y', 'old')],
      ]),
    );
    const later = new CatalogChanges(() => {});
    later.record(new Map([['y', upstream('y', 'new')]]));
    later.inherit(earlier);
    expect(later.goneFrom('x', new Map())).toBe('server "old"');
    expect(later.goneFrom('y', new Map())).toBe('server "new"');
  });
});

describe('CatalogChanges: servers that missed a listing', () => {
  it('announces a late server once it answers, and is not straggling after', async () => {
    let late = 0;
    const changes = new CatalogChanges(() => late++);
    const slow = new FakeUpstream('slow', [tool('echo')], true);
    changes.missed(slow);
    changes.missed(slow); // said once, however often it is missed
    expect(changes.straggling).toBe(true);
    expect(changes.isStraggling(slow)).toBe(true);
    slow.answer();
    expect(await waitFor(() => !changes.straggling, 10_000, 5)).toBe(true);
    expect(late).toBe(1);
    expect(changes.isStraggling(slow)).toBe(false);
  });

  it('does not announce a server whose live listing serves what the lock answered', async () => {
    let late = 0;
    const changes = new CatalogChanges(() => late++);
    const same = new FakeUpstream('same', [tool('echo')], true);
    changes.missed(same, [tool('echo')]);
    same.answer();
    expect(await waitFor(() => !changes.straggling, 10_000, 5)).toBe(true);
    expect(late).toBe(0);
  });
});

describe('refusedServerOf: a name of a server this caller may not reach', () => {
  const refusal = new ToolError('AUTH_FAILED', 'no credentials of yours for "b"');
  const sources = (names: string[]) =>
    new Map(names.map((n) => [n, Object.assign(new FakeUpstream(n, []), { refusal: () => (n === 'b' ? refusal : undefined) })]));
  it.each<[string, string, string[], Partial<Parameters<typeof viewOf>[1]>, boolean]>([
    ['prefixed with the refused server', 'b__echo', ['a', 'b'], {}, true],
    ['prefixed with another server', 'a__echo', ['a', 'b'], {}, false],
    ['under a separator of the view', 'b.echo', ['a', 'b'], { separator: '.' }, true],
    ['unprefixed, the view’s one server', 'echo', ['b'], {}, true],
    ['unprefixed, among several servers: could be any', 'echo', ['a', 'b'], { prefixed: false }, false],
  ])('%s', (_what, name, servers, more, refused) => {
    expect(refusedServerOf(name, viewOf(servers, more), sources(servers))).toBe(refused ? refusal : undefined);
  });
});
