import { describe, expect, it } from 'vitest';
import { reviveDue, serversOfName } from '../../../src/proxy/catalog/revival.js';
import type { ToolSource } from '../../../src/proxy/catalog/tool-sources.js';
import { viewOf } from '../fake-upstreams.js';

describe('serversOfName: the servers a name the catalog lacks could be a tool of', () => {
  it.each([
    ['a prefixed name, its server', ['a', 'b'], {}, 'b__echo', ['b']],
    ['a name of no server prefix, none', ['a', 'b'], {}, 'echo', []],
    ['a prefix followed by another separator, none', ['a', 'b'], {}, 'a_echo', []],
    ['a custom separator', ['a', 'b'], { separator: '-' }, 'a-echo', ['a']],
    ['a separator published sanitized', ['a', 'b'], { separator: '.' }, 'a_echo', ['a']],
    ['a server name published sanitized', ['my.srv', 'b'], {}, 'my_srv__echo', ['my.srv']],
    ['one server, unprefixed: it', ['a'], {}, 'echo', ['a']],
    ['several unprefixed (separator null): every one', ['a', 'b'], { separator: null }, 'echo', ['a', 'b']],
    ['several, prefixed: false: every one', ['a', 'b'], { prefixed: false }, 'echo', ['a', 'b']],
  ] as const)('%s', (_what, servers, more, name, expected) => {
    expect(serversOfName(name, viewOf([...servers], more))).toEqual(expected);
  });
});

describe('reviveDue', () => {
  it('asks every source and returns only those that started a new round; a source without revive is skipped', () => {
    const source = (revives: boolean | undefined, asked: string[], name: string): ToolSource => ({
      listTools: async () => [],
      cachedTools: () => [],
      status: () => ({ state: 'down' }),
      ...(revives === undefined ? {} : { revive: () => (asked.push(name), revives) }),
    });
    const asked: string[] = [];
    const due = source(true, asked, 'due');
    const sources = [source(false, asked, 'cooling'), due, source(undefined, asked, 'plain')];
    expect(reviveDue(sources)).toEqual([due]);
    expect(asked).toEqual(['cooling', 'due']);
  });
});
