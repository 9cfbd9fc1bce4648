import { describe, expect, it } from 'vitest';
import { LinearRegExp } from '../../src/core/regexp/linear-regexp.js';
import { PrefilteredRegExp } from '../../src/core/regexp/prefiltered-regexp.js';
import { mayMatch, requiredLiterals } from '../../src/core/regexp/required-literals.js';

/**
 * The prefilter against RE2 on patterns no rule has yet: generated from literals, small classes
 * (2, 4 and 8 members, and pairs of 8: the sets multiply out up to their bound), optional parts, counted and open
 * repetitions, groups and alternatives, with and without `i`; each tried on texts made from the
 * pattern itself (a match of it, then that match bent) and on short random texts. The prefilter
 * may turn a text away only where RE2 finds no match: a rule added tomorrow must not be switched
 * off by what its pattern happens to look like.
 */
type Node =
  | { kind: 'lit'; text: string }
  | { kind: 'class'; chars: string }
  | { kind: 'seq'; parts: Node[] }
  | { kind: 'alt'; parts: Node[] }
  | { kind: 'rep'; part: Node; lo: number; hi: number | undefined; spelled: string };

/** A seeded PRNG (mulberry32): the same patterns every run. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CLASSES = ['xy', '0123', 'abcdefgh'];
const REPEATS: [number, number | undefined, string][] = [
  [0, 1, '?'],
  [0, 1, '{0,1}'],
  [2, 2, '{2}'],
  [1, 3, '{1,3}'],
  [2, undefined, '{2,}'],
  [0, undefined, '*'],
  [1, undefined, '+'],
];

function generate(random: () => number, depth: number): Node {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const roll = random();
  if (depth <= 0 || roll < 0.3) {
    const leaf = random();
    if (leaf < 0.45) return { kind: 'lit', text: pick(['a', 'ab', 'key', 'To', 's', 'K']) };
    if (leaf < 0.85) return { kind: 'class', chars: pick(CLASSES) };
    // Exactly 64 strings: a set at its bound.
    return { kind: 'rep', part: { kind: 'class', chars: 'abcdefgh' }, lo: 2, hi: 2, spelled: '{2}' };
  }
  if (roll < 0.6) return { kind: 'seq', parts: Array.from({ length: 2 + Math.floor(random() * 3) }, () => generate(random, depth - 1)) };
  if (roll < 0.75) return { kind: 'alt', parts: Array.from({ length: 2 + Math.floor(random() * 2) }, () => generate(random, depth - 1)) };
  const [lo, hi, spelled] = pick(REPEATS);
  return { kind: 'rep', part: generate(random, depth - 1), lo, hi, spelled };
}

function source(node: Node): string {
  switch (node.kind) {
    case 'lit':
      return node.text;
    case 'class':
      return node.chars === 'abcdefgh' ? '[a-h]' : node.chars === '0123' ? '[0-3]' : `[${node.chars}]`;
    case 'seq':
      return node.parts.map(source).join('');
    case 'alt':
      return `(?:${node.parts.map(source).join('|')})`;
    case 'rep':
      return `(?:${source(node.part)})${node.spelled}`;
  }
}

/** One string the pattern matches. */
function sample(node: Node, random: () => number): string {
  switch (node.kind) {
    case 'lit':
      return node.text;
    case 'class':
      return node.chars[Math.floor(random() * node.chars.length)]!;
    case 'seq':
      return node.parts.map((p) => sample(p, random)).join('');
    case 'alt':
      return sample(node.parts[Math.floor(random() * node.parts.length)]!, random);
    case 'rep': {
      const times = node.lo + Math.floor(random() * ((node.hi ?? node.lo + 3) - node.lo + 1));
      return Array.from({ length: times }, () => sample(node.part, random)).join('');
    }
  }
}

/** A match bent: letters' case changed, one character dropped or doubled, the long s and Kelvin sign for s and k. */
function bent(text: string, random: () => number): string {
  const at = Math.floor(random() * Math.max(1, text.length));
  const roll = random();
  if (roll < 0.25) return text.replace(/[a-z]/gi, (c) => (random() < 0.5 ? c.toUpperCase() : c.toLowerCase()));
  if (roll < 0.45) return text.slice(0, at) + text.slice(at + 1);
  if (roll < 0.6) return text.slice(0, at) + text[at] + text.slice(at);
  if (roll < 0.8) return text.replace(/s/gi, '\u017F').replace(/k/gi, '\u212A');
  return `${'zz'.repeat(Math.floor(random() * 3))}${text}${'q'.repeat(Math.floor(random() * 3))}`;
}

describe('the prefilter never turns away a text RE2 matches, on generated patterns', () => {
  it('agrees with RE2 on 1,500 patterns, with and without i, on their own matches bent and on random texts', () => {
    const random = prng(20261129);
    let turnedAway = 0;
    let matched = 0;
    const disagreements: string[] = [];
    for (let n = 0; n < 1500 && disagreements.length < 5; n++) {
      const tree = generate(random, 3);
      const pattern = new RegExp(source(tree), random() < 0.5 ? 'i' : '');
      const required = requiredLiterals(pattern);
      if (!required) continue;
      const linear = new LinearRegExp(pattern);
      const prefiltered = new PrefilteredRegExp(pattern);
      const own = sample(tree, random);
      const texts = [own, ...Array.from({ length: 6 }, () => bent(own, random)), ...Array.from({ length: 4 }, () => sample(generate(random, 2), random))];
      for (const text of texts) {
        const truth = linear.test(text);
        if (truth) matched++;
        if (!mayMatch(required, text)) turnedAway++;
        if (truth && (!mayMatch(required, text) || !prefiltered.test(text))) disagreements.push(`${pattern} on ${JSON.stringify(text)}`);
      }
    }
    expect(disagreements).toEqual([]);
    // Not a test that passes by turning nothing away, or by never matching.
    expect(matched).toBeGreaterThan(3000);
    expect(turnedAway).toBeGreaterThan(1000);
  });

  it.each([
    // An optional part of exactly 64 strings: with the empty string it is past the set's bound (a
    // version once kept the empty string alone, gluing the literals either side together).
    [/a(?:[a-h][a-h])?b/, 'aahb'],
    [/x(?:[0-7]{2})?y/, 'x12y'],
    [/\bbefore(?:[a-h][a-h])?using\b/i, 'beforeabusing'],
  ])('%s: the prefilter lets %s through, which RE2 matches', (pattern, text) => {
    expect(new LinearRegExp(pattern).test(text)).toBe(true);
    const required = requiredLiterals(pattern);
    expect(required === undefined || mayMatch(required, text)).toBe(true);
    expect(new PrefilteredRegExp(pattern).test(text)).toBe(true);
  });
});
