import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { patternsOf } from '../../../src/proxy/pins/rule-patterns.js';
import { SCAN_RULES, type ScanRule } from '../../../src/proxy/pins/scan-rules.js';
import { scanTools, type ScanTool } from '../../../src/proxy/pins/scan.js';
import { LinearRegExp } from '../../../src/core/regexp/linear-regexp.js';
import { PrefilteredRegExp } from '../../../src/core/regexp/prefiltered-regexp.js';
import { requiredLiterals } from '../../../src/core/regexp/required-literals.js';

/**
 * The scanner's prefilter (core/regexp/required-literals.ts) changes nothing it finds: for every rule,
 * random and adversarial texts give the same findings, spans and order with the prefilter as with
 * RE2 run on every text. The texts are built from each rule's own literals, mutated the ways an
 * attacker would try (case, the characters RE2 folds onto ASCII, a letter dropped or doubled,
 * spaces and line breaks inside), its examples, and the characters its patterns are made of.
 */

/** mulberry32: the same texts on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Ways a literal is bent: each keeps or breaks a match, and the prefilter must agree with RE2 either way. */
const MUTATIONS: ((s: string, next: () => number) => string)[] = [
  (s) => s,
  (s) => s.toUpperCase(),
  (s, next) => [...s].map((c) => (next() < 0.5 ? c.toUpperCase() : c)).join(''),
  (s) => s.replace(/s/g, '\u017F'),
  (s) => s.replace(/k/g, '\u212A').replace(/K/g, '\u212A'),
  (s) => s.replace(/i/g, '\u0130'),
  (s, next) => dropAt(s, Math.floor(next() * s.length)),
  (s, next) => {
    const at = Math.floor(next() * s.length);
    return s.slice(0, at + 1) + s.slice(at);
  },
  (s, next) => {
    const at = Math.floor(next() * s.length);
    return `${s.slice(0, at)}${pick(next, [' ', '\n', '\t', '\u00A0', '\u200B', '-', '_', '.'])}${s.slice(at)}`;
  },
  (s, next) => s.slice(0, Math.max(1, Math.floor(next() * s.length))),
  (s) => s.replace(/ /g, '  '),
  (s) => s.replace(/ /g, '\n'),
];

function dropAt(s: string, at: number): string {
  return s.slice(0, at) + s.slice(at + 1);
}

function pick<T>(next: () => number, from: readonly T[]): T {
  return from[Math.floor(next() * from.length)]!;
}

const FILLERS = [
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\t',
  '\u00A0',
  '.',
  ', ',
  ' to ',
  '@',
  'a@b.example',
  '~/',
  '/',
  '(',
  ')',
  '[',
  ']',
  '![',
  '](',
  '<',
  '>',
  '<!--',
  '-->',
  '#',
  '|',
  '=',
  '{',
  '$',
];
const WORDS = [
  'Adds',
  'two',
  'numbers',
  'the',
  'user',
  'tool',
  'file',
  'and',
  'send',
  'all',
  'http://x.example/p?q={d}',
  'https://docs.example.com',
  'env',
  'key',
];

/** Texts for one rule: its literals mutated among words and fillers, its examples whole and mutated, runs of blanks. */
function textsFor(rule: ScanRule, count: number, next: () => number): string[] {
  const literals = patternsOf(rule).flatMap((p) => [...(requiredLiterals(p)?.literals ?? [])]);
  const words = patternsOf(rule).flatMap((p) => p.source.match(/[a-z_]{2,}/gi) ?? []);
  const examples = [...rule.examples.match, ...rule.examples.clean].filter((e): e is string => typeof e === 'string');
  const pieces = [...literals, ...words, ...examples, ...WORDS];
  const out = [...examples];
  while (out.length < count) {
    const parts: string[] = [];
    for (let n = 1 + Math.floor(next() * 8); n > 0; n--) {
      const piece = next() < 0.3 ? pick(next, FILLERS) : pick(next, MUTATIONS)(pick(next, pieces), next);
      parts.push(piece, next() < 0.6 ? ' ' : pick(next, FILLERS));
    }
    if (next() < 0.05) parts.push(' '.repeat(60 + Math.floor(next() * 10)), 'x');
    if (next() < 0.05) parts.push('\n'.repeat(8 + Math.floor(next() * 4)), 'x');
    out.push(parts.join(''));
  }
  return out;
}

/**
 * expect(actual).toEqual(expected), asked only where node's strict deep equality (which implies
 * toEqual's) does not already hold: some 14,000 texts, the expect calls and their messages cost
 * more than a third of this file's CPU. A difference still fails with toEqual's diff and the text.
 */
function same(actual: unknown, expected: unknown, text: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, JSON.stringify(text)).toEqual(expected);
}

const tool = (description: string, parameter: string, said: string): ScanTool => ({
  server: 'upstream',
  tool: 'lookup',
  definition: {
    name: 'lookup',
    description,
    inputSchema: { type: 'object', properties: { query: { type: 'string' }, [parameter]: { type: 'string', description: said } } },
  },
});

describe('the prefilter changes no finding', () => {
  const next = random(70);
  const rules = SCAN_RULES.filter((r) => r.kind === 'text' || r.kind === 'parameter');

  it.each(rules.map((r) => [r.id, r.name, r] as const))('%s %s: same findings, spans and order with and without it', (_id, _name, rule) => {
    const texts = textsFor(rule, 400, next);
    const names = rule.names ? (requiredLiterals(rule.names)?.literals ?? []) : ['notes'];
    let found = 0;
    for (const text of texts) {
      const name = pick(next, names);
      const parameter = (next() < 0.5 ? name : pick(next, MUTATIONS)(name, next)) || 'notes';
      // The parameter is told what the text says, or named in a text that says it (MCPK012's two ways).
      const tools = [next() < 0.5 ? tool(pick(next, texts), parameter, text) : tool(`${text} Fill ${parameter}.`, parameter, '')];
      const plain = scanTools(tools, [rule], { prefilter: false });
      same(scanTools(tools, [rule]), plain, text);
      if (plain.length) found++;
    }
    // The texts must exercise both sides: many match, and many are turned away before RE2.
    expect(found, 'texts that match').toBeGreaterThan(texts.length / 20);
    expect(found, 'texts that do not').toBeLessThan(texts.length);
  });

  it.each(SCAN_RULES.flatMap((r) => patternsOf(r).map((p, i) => [`${r.id} #${i + 1}`, p, r] as const)))(
    '%s: each pattern, mask and name list gives the same matches with and without it',
    (_what, pattern, rule) => {
      const filtered = new PrefilteredRegExp(pattern);
      const linear = new LinearRegExp(pattern);
      let skipped = 0;
      for (const text of textsFor(rule, 300, next)) {
        same(filtered.matches(text), linear.matches(text), text);
        if (!filtered.mayMatch(text)) skipped++;
      }
      expect(skipped, 'texts the prefilter turned away').toBeGreaterThan(0);
    },
  );
});
