import { describe, expect, it } from 'vitest';
import { foldForLiterals, mayMatch, requiredLiterals } from '../../src/core/regexp/required-literals.js';
import { LinearRegExp } from '../../src/core/regexp/linear-regexp.js';
import { PrefilteredRegExp } from '../../src/core/regexp/prefiltered-regexp.js';
import { SCAN_RULES } from '../../src/proxy/pins/scan-rules.js';

/** The literals of a pattern as a sorted list; 'unsure' when there is no prefilter; 'none' when only a length is known. */
function literalsOf(pattern: RegExp): string[] | 'unsure' | 'none' {
  const required = requiredLiterals(pattern);
  if (!required) return 'unsure';
  return required.literals ? [...required.literals].sort() : 'none';
}

describe('requiredLiterals: what every match contains, by construct', () => {
  it.each([
    ['a word', /secret/, ['secret']],
    ['case-insensitive: folded to lower case', /SeCrEt/i, ['secret']],
    ['case kept without i', /SeCrEt/, ['SeCrEt']],
    ['alternatives: one of each', /cat|dog/, ['cat', 'dog']],
    ['an optional part multiplies out', /tokens?/, ['token']],
    ['an optional group', /auth(entication)? token/, ['auth token', 'authentication token']],
    ['a small class multiplies out', /api[ _-]key/, ['api key', 'api-key', 'api_key']],
    ['word boundaries and anchors match nothing', /^\bweb\b$/, ['web']],
    ['escapes that stand for themselves', /\.env\/x\(y\)/, ['.env/x(y)']],
    ['control and hex escapes', /a\nb\x41\u0042/, ['a\nbAB']],
    ['a non-capturing group', /(?:ab|cd)ef/, ['abef', 'cdef']],
    ['the longest literal wins over a shorter one beside an unknown part', /to\s+x+@[\w-]+example/, ['example']],
    ['a run broken by an unknown part: each side is a candidate', /before\s+answering/, ['answering']],
    ['a repeated exact part: its first repetitions in a row', /(ab){3,}/, ['ababab']],
    ['a repeated class: its first repetitions in a row', /[xy]{3,}/, ['xxx', 'xxy', 'xyx', 'xyy', 'yxx', 'yxy', 'yyx', 'yyy']],
    [
      'a repeated class: as many repetitions as 64 strings allow',
      /[xy]{60,}/,
      Array.from({ length: 64 }, (_, i) => i.toString(2).padStart(6, '0').replace(/0/g, 'x').replace(/1/g, 'y')),
    ],
    ['a lazy quantifier is still a quantifier', /<!--[\s\S]*?-->/, ['<!--']],
    ['an alternative that may be empty: no literal', /(a|)b*/, 'none'],
    ['an optional whole: no literal', /(secret)?/, 'none'],
    ['anything repeated: no literal', /\w+/, 'none'],
    ['a negated class is no literal', /[^a]+/, 'none'],
    ['a big class is no literal', /[a-z]{3}/, 'none'],
    ['case-insensitive non-ASCII: no literal (RE2 folds more than toLowerCase)', /ß/i, 'none'],
    ['an alternative with no literal loses the others', /secret|\d+/, 'none'],
  ] as const)('%s: %s', (_what, pattern, expected) => {
    expect(literalsOf(pattern)).toEqual(expected);
  });

  it.each([
    ['lookahead', /a(?=b)/],
    ['negative lookahead', /a(?!b)/],
    ['lookbehind', /(?<=a)b/],
    ['a backreference', /(a)\1/],
    ['a named group', /(?<x>a)/],
    ['a property escape', /\p{L}/u],
    ['the u flag', /abc/u],
    ['the v flag', new RegExp('abc', 'v')],
    ['a brace that is no quantifier', /a{,3}/],
    ['a control escape', /\cJ/],
    ['an empty class', new RegExp('a[]')],
    ['any character, as a class', /a[^]b/],
    ['a backspace in a class', /[\b]/],
    ['a letter escape it does not know', new RegExp('\\q')],
  ])('unsure of %s: no prefilter at all', (_what, pattern) => {
    expect(requiredLiterals(pattern)).toBeUndefined();
  });

  it.each([
    [/secret/, 6],
    [/(\r?\n[ \t]*){8,}\S/, 9],
    [/[ \t\u00A0]{60,}\S/, 61],
    [/a?b*c{2,3}/, 2],
    [/x|yyy/, 1],
    [/\bhttps?:\/\//, 7],
  ])('%s: no match is shorter than %i', (pattern, length) => {
    expect(requiredLiterals(pattern)?.minLength).toBe(length);
  });
});

describe('requiredLiterals of the real rule set', () => {
  const patterns = SCAN_RULES.flatMap((r) => [
    ...(r.patterns ?? []).map((p, i) => [`${r.id} pattern ${i + 1}`, p] as const),
    ...(r.masks ?? []).map((m, i) => [`${r.id} mask ${i + 1}`, m.pattern] as const),
    ...(r.names ? [[`${r.id} names`, r.names] as const] : []),
  ]);

  it('reads every pattern, mask and name list of the rules (none is left without a prefilter)', () => {
    expect(patterns.length).toBeGreaterThan(30);
    for (const [what, pattern] of patterns) expect(requiredLiterals(pattern)?.literals, what).toBeDefined();
  });

  it.each([
    ['MCPK006 pattern 1', ['.ssh/', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_rsa', '~/.ssh']],
    ['MCPK006 pattern 2', ['.env']],
    ['MCPK004 pattern 2', ['before answering', 'before replying', 'before responding', 'before you answer', 'before you respond']],
    ['MCPK010 pattern 1', ['<!--']],
    ['MCPK010 pattern 2', ['\n']],
    ['MCPK011 pattern 1', ['http://', 'https://']],
    [
      'MCPK012 names',
      [
        'additional_info',
        'additionalinfo',
        'annotation',
        'comment',
        'context',
        'conversation',
        'debug',
        'details',
        'extra',
        'feedback',
        'history',
        'memo',
        'meta',
        'note',
        'reasoning',
        'remark',
        'summary',
      ],
    ],
  ])('%s', (what, expected) => {
    const pattern = patterns.find(([w]) => w === what)![1];
    expect(literalsOf(pattern)).toEqual(expected);
  });

  it("the rules' own match examples pass the prefilter of each pattern that matches them", () => {
    for (const rule of SCAN_RULES) {
      for (const example of rule.examples.match) {
        if (typeof example !== 'string') continue;
        const hits = (rule.patterns ?? []).filter((p) => new LinearRegExp(p).test(example));
        for (const p of hits) expect(mayMatch(requiredLiterals(p)!, example), `${rule.id} ${p.source} on ${example}`).toBe(true);
      }
    }
  });
});

describe('foldForLiterals folds what RE2 folds onto ASCII', () => {
  /** Every code point past ASCII, surrogates left out: what RE2's case-insensitive ASCII might match. */
  const beyondAscii = (() => {
    let s = '';
    for (let cp = 0x80; cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) s += String.fromCodePoint(cp);
    return s;
  })();

  it('each character RE2 matches for an ASCII character, case-insensitively, folds to that character folded', () => {
    // One pass finds every character in the case orbit of some printable ASCII character (K, ſ today).
    const orbitMembers = new LinearRegExp(/[\x20-\x7E]/i).matches(beyondAscii).map((m) => m.found);
    expect(orbitMembers.length).toBeGreaterThan(0);
    for (const member of orbitMembers) {
      for (let c = 0x20; c < 0x7f; c++) {
        const ascii = String.fromCharCode(c);
        const escaped = ascii.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
        if (new LinearRegExp(new RegExp(escaped, 'i')).test(member))
          expect(foldForLiterals(member), `U+${member.codePointAt(0)!.toString(16)}`).toBe(ascii.toLowerCase());
      }
    }
  });

  it.each([
    ['PaSSword', 'password'],
    ['pa\u017F\u017Fword', 'password'],
    ['\u212Aey', 'key'],
    ['\u0130 lowers to two units (an i and a dot), harmlessly', 'i\u0307 lowers to two units (an i and a dot), harmlessly'],
  ])('%s', (text, folded) => expect(foldForLiterals(text)).toBe(folded));
});

describe('mayMatch', () => {
  const required = requiredLiterals(/\b(api[ _-]?keys?|passwords?)\b/i)!;
  it.each([
    ['holds a literal', 'send the API_KEY', true],
    ['holds one folded by RE2 only', 'the pa\u017F\u017Fword', true],
    ['holds none', 'adds two numbers', false],
    ['shorter than any match', 'api', false],
  ])('%s', (_what, text, expected) => expect(mayMatch(required, text)).toBe(expected));
});

describe('PrefilteredRegExp compiles RE2 only for a text that may match', () => {
  it.each([
    ['a text without the literal', /\bsecret\b/i, 'Adds two numbers.', false, []],
    ['a text too short', /[ \t]{60,}\S/, 'x', false, []],
    ['a text with the literal', /\bsecret\b/i, 'Send the SECRET.', true, ['SECRET']],
    ['a text with the literal that still does not match', /\bsecret\b/i, 'Secretive.', true, []],
    ['a pattern with no literal', /\w{3}/, 'xyz', true, ['xyz']],
    ['a pattern with no prefilter (a named group)', /(?<x>ab)/, 'xyz', true, []],
  ])('%s', (_what, pattern, text, compiled, found) => {
    const re = new PrefilteredRegExp(pattern);
    expect(re.compiled).toBe(false);
    expect(re.matches(text).map((m) => m.found)).toEqual(found);
    expect(re.compiled).toBe(compiled);
  });
});
