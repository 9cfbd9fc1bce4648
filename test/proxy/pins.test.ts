import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { emptyPins, pinFilePath, pinsFromText, pinsText } from '../../src/config/pin-file.js';
import { definitionDiff } from '../../src/proxy/pin-review.js';
import { admitTools, comparePins, escapeInvisible, invisibleIn, invisibleInDefinition, pinDefinition, pinOf, type ServerPins } from '../../src/proxy/pins.js';

const tool = (name: string, description = `${name} it`, more: Partial<Tool> = {}): Tool => ({ name, description, inputSchema: { type: 'object' }, ...more });
const pinsOf = (...tools: Tool[]): ServerPins => Object.fromEntries(tools.map((t) => [t.name, pinOf(t)]));

describe('pinDefinition and pinOf', () => {
  it('pins what reaches the model or decides a call, and nothing else', () => {
    const t = tool('a', 'A.', {
      title: 'A',
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      _meta: { x: 1 },
      icons: [],
    } as Partial<Tool>);
    expect(Object.keys(pinDefinition(t)).sort()).toEqual(['annotations', 'description', 'inputSchema', 'name', 'outputSchema', 'title']);
  });

  it.each([
    ['the same tool', tool('a'), tool('a'), true],
    [
      'keys in another order',
      tool('a', 'x', { inputSchema: { type: 'object', properties: { p: { type: 'string' } } } }),
      { inputSchema: { properties: { p: { type: 'string' } }, type: 'object' }, description: 'x', name: 'a' } as Tool,
      true,
    ],
    ['another description', tool('a', 'x'), tool('a', 'y'), false],
    ['another schema', tool('a', 'x'), tool('a', 'x', { inputSchema: { type: 'object', required: ['p'] } }), false],
    ['another annotation', tool('a', 'x'), tool('a', 'x', { annotations: { destructiveHint: true } }), false],
    ['another title', tool('a', 'x'), tool('a', 'x', { title: 'T' } as Partial<Tool>), false],
    ['only _meta differs', tool('a', 'x'), tool('a', 'x', { _meta: { n: 2 } } as Partial<Tool>), true],
  ])('%s: same hash %s', (_what, a, b, same) => {
    expect(pinOf(a).sha256 === pinOf(b).sha256).toBe(same);
  });
});

describe('comparePins', () => {
  it('names added, removed, changed and unchanged tools, sorted', () => {
    const pins = pinsOf(tool('keep'), tool('change'), tool('gone'));
    expect(comparePins(pins, [tool('new2'), tool('change', 'other'), tool('keep'), tool('new1')])).toEqual({
      unchanged: ['keep'],
      added: ['new1', 'new2'],
      removed: ['gone'],
      changed: ['change'],
    });
  });
});

describe('admitTools: what a listing becomes', () => {
  const pins = pinsOf(tool('same'), tool('changed'));
  const listing = [tool('same'), tool('changed', 'rug pull'), tool('brand_new')];
  it.each([
    ['enforce', pins, ['same'], ['changed:changed', 'brand_new:new'], false],
    ['warn', pins, ['same', 'changed', 'brand_new'], ['changed:changed', 'brand_new:new'], false],
    ['off', pins, ['same', 'changed', 'brand_new'], [], false],
    ['enforce', undefined, ['same', 'changed', 'brand_new'], [], true],
    ['off', undefined, ['same', 'changed', 'brand_new'], [], false],
  ] as const)('%s with pins %j', (mode, p, served, differing, firstUse) => {
    const verdict = admitTools(listing, p, mode);
    expect(verdict.served.map((t) => t.name)).toEqual(served);
    expect(verdict.differing.map((d) => `${d.tool.name}:${d.why}`)).toEqual(differing);
    expect(verdict.firstUse).toBe(firstUse);
  });

  it('an empty listing of an unpinned server is not first use (nothing to pin yet)', () => {
    expect(admitTools([], undefined, 'enforce').firstUse).toBe(false);
  });
});

describe('invisible characters', () => {
  it.each([
    ['plain text', 'Send a note.', [], 'Send a note.'],
    ['tag characters', 'ok\u{E0041}\u{E007F}', ['U+E0041', 'U+E007F'], 'ok\\u{E0041}\\u{E007F}'],
    ['a bidi override', 'a\u202Eb', ['U+202E'], 'a\\u{202E}b'],
    ['bidi isolates', '\u2066x\u2069', ['U+2066', 'U+2069'], '\\u{2066}x\\u{2069}'],
    ['zero-width space and joiner', 'a\u200Bb\u200Dc', ['U+200B', 'U+200D'], 'a\\u{200B}b\\u{200D}c'],
    ['a byte order mark', '\uFEFFhi', ['U+FEFF'], '\\u{FEFF}hi'],
    ['accents and emoji stay', 'café 👍', [], 'café 👍'],
  ])('%s', (_what, text, found, escaped) => {
    expect(invisibleIn(text)).toEqual(found);
    expect(escapeInvisible(text)).toBe(escaped);
  });

  it('finds them anywhere in a definition: a parameter description, a property name', () => {
    const t = tool('a', 'fine', { inputSchema: { type: 'object', properties: { ['p\u200B']: { type: 'string', description: 'x\u{E0020}' } } } });
    expect(invisibleInDefinition(pinDefinition(t))).toEqual(['U+200B', 'U+E0020']);
  });
});

describe('the lock file', () => {
  it.each([
    ['/home/a/.config/mcpkit/config.yaml', '/home/a/.config/mcpkit/config.lock.yaml'],
    ['/work/mcpkit.yaml', '/work/mcpkit.lock.yaml'],
    ['/work/team.yml', '/work/team.lock.yaml'],
  ])('%s has %s', (config, lock) => {
    expect(pinFilePath(config)).toBe(lock);
  });

  it('writes servers and tools in name order, so the same pins read the same', () => {
    const a = { version: 1 as const, servers: { zed: pinsOf(tool('b'), tool('a')), alpha: pinsOf(tool('x')) } };
    const b = { version: 1 as const, servers: { alpha: pinsOf(tool('x')), zed: pinsOf(tool('a'), tool('b')) } };
    expect(pinsText(a)).toBe(pinsText(b));
    expect(pinsText(a).indexOf('alpha:')).toBeLessThan(pinsText(a).indexOf('zed:'));
    expect(pinsFromText(pinsText(a), 'f')).toEqual(b);
  });

  it.each([
    ['not YAML', 'servers: [oops', /cannot be read/],
    ['no version', 'servers: {}', /version: 1/],
    ['a list', '- a', /version: 1/],
  ])('refuses a file that is %s, naming it', (_what, text, why) => {
    expect(() => pinsFromText(text, '/x/mcpkit.lock.yaml')).toThrow(why);
  });

  it('reads an empty file as no pins', () => {
    expect(pinsFromText('', 'f')).toEqual(emptyPins());
  });
});

describe('definitionDiff', () => {
  it('marks the lines removed and added, with invisible characters shown', () => {
    const diff = definitionDiff(pinDefinition(tool('a', 'old')), pinDefinition(tool('a', 'new\u202E')));
    expect(diff).toContain('-   "description": "old",');
    expect(diff).toContain('+   "description": "new\\u{202E}",');
    expect(diff.filter((l) => l.startsWith('  ')).length).toBeGreaterThan(0);
  });

  it('shows a new tool as all added, and a removed one as all removed', () => {
    expect(definitionDiff(undefined, pinDefinition(tool('a'))).every((l) => l.startsWith('+ '))).toBe(true);
    expect(definitionDiff(pinDefinition(tool('a')), undefined).every((l) => l.startsWith('- '))).toBe(true);
  });
});
