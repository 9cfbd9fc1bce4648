import { describe, expect, it } from 'vitest';
import { compileFilter, explainDecision, globToRegExp, type FilterRule } from '../../../src/proxy/catalog/filter.js';

const inc = (include: string): FilterRule => ({ include });
const exc = (exclude: string): FilterRule => ({ exclude });
const PLAYWRIGHT = ['browser_navigate', 'browser_close', 'browser_close_tab', 'browser_close_window', 'browser_click', 'tab_list', 'screenshot'];

function passing(rules: FilterRule[], names = PLAYWRIGHT): string[] {
  const filter = compileFilter(rules);
  return names.filter((n) => filter(n).allowed);
}

describe('compileFilter: the examples of seed 002 (mcp-filter ADR-002)', () => {
  it('exclude specific, then include broad: browser_close excluded, browser_navigate included', () => {
    const f = compileFilter([exc('browser_close'), inc('browser_*')]);
    expect(f('browser_close')).toMatchObject({ allowed: false, rule: { index: 0, action: 'exclude' } });
    expect(f('browser_navigate')).toMatchObject({ allowed: true, rule: { index: 1, action: 'include' } });
    expect(passing([exc('browser_close'), inc('browser_*')])).toEqual(['browser_navigate', 'browser_close_tab', 'browser_close_window', 'browser_click']);
  });

  it('include broad, then exclude specific: browser_close INCLUDED (first match wins)', () => {
    const f = compileFilter([inc('browser_*'), exc('browser_close')]);
    expect(f('browser_close')).toMatchObject({ allowed: true, rule: { index: 0, action: 'include' } });
  });

  it('layered include/exclude/include: every browser_close* matches the first include', () => {
    const rules = [inc('browser_*'), exc('browser_close*'), inc('browser_close_tab')];
    const f = compileFilter(rules);
    for (const name of ['browser_close', 'browser_close_window', 'browser_close_tab']) {
      expect(f(name)).toMatchObject({ allowed: true, rule: { index: 0 } });
    }
  });

  it('no patterns: allow all (passthrough)', () => {
    expect(passing([])).toEqual(PLAYWRIGHT);
    expect(compileFilter([])('anything').reason).toBe('no-rules');
  });

  it('only includes: implicit exclude-all at the end', () => {
    expect(passing([inc('browser_*')])).toEqual(PLAYWRIGHT.filter((n) => n.startsWith('browser_')));
    expect(compileFilter([inc('browser_*')])('tab_list')).toEqual({ allowed: false, reason: 'no-match-whitelist' });
  });

  it('only excludes: allow all that do not match', () => {
    expect(passing([exc('browser_close*')])).toEqual(['browser_navigate', 'browser_click', 'tab_list', 'screenshot']);
    expect(compileFilter([exc('x')])('tab_list')).toEqual({ allowed: true, reason: 'no-match-allow' });
  });

  it('mixed: a name no rule matches is excluded while any include exists (the implementation notes, not the summary line)', () => {
    expect(compileFilter([exc('browser_close'), inc('browser_*')])('tab_list')).toEqual({ allowed: false, reason: 'no-match-whitelist' });
  });
});

describe('globToRegExp', () => {
  it.each([
    ['browser_*', 'browser_', true],
    ['browser_*', 'browser_x_y', true],
    ['browser_*', 'xbrowser_a', false],
    ['*_close', 'browser_close', true],
    ['*', '', true],
    ['?at', 'cat', true],
    ['?at', 'at', false],
    ['[bc]at', 'bat', true],
    ['[bc]at', 'rat', false],
    ['[!bc]at', 'rat', true],
    ['[a-c]x', 'bx', true],
    ['{read,write}_file', 'write_file', true],
    ['{read,write}_file', 'move_file', false],
    ['a.b', 'a.b', true],
    ['a.b', 'axb', false],
    ['a+(b)', 'a+(b)', true],
    ['\\*', '*', true],
    ['\\*', 'x', false],
    ['Browser_*', 'browser_a', false],
    ['[oops', '[oops', true],
  ])('%s vs %s -> %s', (glob, name, expected) => {
    expect(globToRegExp(glob).test(name)).toBe(expected);
  });

  it('refuses an unbalanced brace', () => {
    expect(() => globToRegExp('{a,b')).toThrow(/Unbalanced/);
  });
});

describe('explainDecision', () => {
  it.each([
    [[exc('browser_close'), inc('browser_*')], 'browser_close', 'rule 1: --exclude "browser_close"'],
    [[inc('browser_*')], 'tab_list', 'no rule matched; include rules exist, so it is excluded'],
    [[exc('x')], 'tab_list', 'no rule matched; only exclude rules exist, so it passes'],
    [[], 'tab_list', 'no rules: everything passes'],
  ])('%j on %s', (rules, name, text) => {
    expect(explainDecision(compileFilter(rules)(name))).toBe(text);
  });
});
