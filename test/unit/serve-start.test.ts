import { describe, expect, it } from 'vitest';
import { settledWithin, startNote, startsServersAtOnce, viewsStartedWithServe } from '../../src/mcp/serve-start.js';

describe('startsServersAtOnce (serve.eager)', () => {
  it.each([
    [undefined, undefined, true],
    [undefined, false, false],
    [undefined, true, true],
    [false, true, false],
    [true, false, true],
    [false, undefined, false],
  ] as const)('flag %s, config %s: %s', (flag, configured, expected) => {
    expect(startsServersAtOnce(flag, configured)).toBe(expected);
  });
});

describe('viewsStartedWithServe', () => {
  const views = { research: {}, desk: {} };
  it.each([
    ['stdio, the default view', {}, {}, [undefined]],
    ['stdio, a view', { view: 'desk' }, {}, ['desk']],
    ['http: the default catalog and every view', { http: true }, {}, [undefined, 'research', 'desk']],
    ['http, serve.eager: false', { http: true }, { eager: false }, undefined],
    ['stdio, --no-eager', { eager: false }, {}, undefined],
    ['http, --eager over serve.eager: false', { http: true, eager: true }, { eager: false }, [undefined, 'research', 'desk']],
  ] as const)('%s', (_, options, serve, expected) => {
    expect(viewsStartedWithServe(options, { serve, tool_views: views })).toEqual(expected);
  });
});

describe('startNote (what "listening" adds about the servers started with serve)', () => {
  it.each([
    [[], ''],
    [[{ name: 'a', state: 'ready' }], ''],
    [
      [
        { name: 'b', state: 'connecting' },
        { name: 'a', state: 'connecting' },
        { name: 'c', state: 'ready' },
      ],
      '; servers still starting: a, b',
    ],
    [
      [
        { name: 'x', state: 'down' },
        { name: 'y', state: 'needs_login' },
      ],
      '; servers not connected (see /health): x, y',
    ],
    [
      [
        { name: 'x', state: 'down' },
        { name: 's', state: 'connecting' },
      ],
      '; servers still starting: s; not connected (see /health): x',
    ],
    [
      [
        { name: 'i', state: 'idle' },
        { name: 'z', state: 'closed' },
      ],
      '',
    ],
  ] as const)('%j -> %j', (statuses, expected) => {
    expect(startNote(statuses)).toBe(expected);
  });
});

describe('settledWithin', () => {
  it('settles when the work does, whether it resolves or rejects', async () => {
    await expect(settledWithin(Promise.resolve(1), 60_000)).resolves.toBeUndefined();
    await expect(settledWithin(Promise.reject(new Error('no')), 60_000)).resolves.toBeUndefined();
  });

  it('settles at the bound when the work never does', async () => {
    await expect(settledWithin(new Promise(() => undefined), 1)).resolves.toBeUndefined();
  });
});
