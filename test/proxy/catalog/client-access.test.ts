import { describe, expect, it } from 'vitest';
import { compileClientRules, parseToolRule, restricts } from '../../../src/proxy/catalog/client-access.js';

describe('parseToolRule', () => {
  it.each([
    ['+ everything__echo', { include: 'everything__echo' }],
    ['- *', { exclude: '*' }],
    ['  +   github__*  ', { include: 'github__*' }],
    [{ include: 'a*' }, { include: 'a*' }],
    [{ exclude: 'b' }, { exclude: 'b' }],
  ] as const)('%j', (text, want) => {
    expect(parseToolRule(text)).toEqual(want);
  });

  it.each(['everything__echo', '+everything__echo', '* x', '+ ', ''])('refuses %j, saying how to write one', (text) => {
    expect(parseToolRule(text)).toMatchObject({ problem: expect.stringContaining('"+ GLOB"') });
  });
});

describe('compileClientRules', () => {
  const tool = (name: string, readOnly = false) => ({ name, readOnly });
  it.each([
    ['no rules: everything', {}, tool('x'), true, 'no rule refuses it'],
    ['first match wins: allowed', { tools: ['+ everything__echo', '- *'] }, tool('everything__echo'), true, 'rule 1 "+ everything__echo" allows it'],
    ['first match wins: refused', { tools: ['+ everything__echo', '- *'] }, tool('everything__get-sum'), false, 'rule 2 "- *" refuses it'],
    ['an include list refuses what it does not name', { tools: ['+ a*'] }, tool('b'), false, 'no rule allows it (the rules list what is allowed)'],
    ['exclude only: the rest passes', { tools: ['- *delete*'] }, tool('repo_list'), true, 'no rule refuses it'],
    ['exclude only: refused', { tools: ['- *delete*'] }, tool('repo_delete'), false, 'rule 1 "- *delete*" refuses it'],
    ['read_only refuses a writer the rules allow', { read_only: true }, tool('write_file'), false, 'read_only: it does not declare readOnlyHint'],
    ['read_only keeps a reader', { read_only: true, tools: ['+ *'] }, tool('read_file', true), true, 'rule 1 "+ *" allows it, and it only reads'],
    ['rules first, then read_only', { read_only: true, tools: ['- read_*'] }, tool('read_file', true), false, 'rule 1 "- read_*" refuses it'],
  ] as const)('%s', (_name, spec, facts, allowed, because) => {
    expect(compileClientRules(spec)(facts)).toEqual({ allowed, because });
  });

  it('throws on a rule that cannot be parsed', () => {
    expect(() => compileClientRules({ tools: ['echo'] })).toThrow('"echo" is not a rule');
  });

  it.each([
    [{}, false],
    [{ tools: [] }, false],
    [{ tools: ['- *'] }, true],
    [{ read_only: true }, true],
    [{ read_only: false }, false],
  ])('restricts(%j) is %s', (spec, want) => {
    expect(restricts(spec)).toBe(want);
  });
});
