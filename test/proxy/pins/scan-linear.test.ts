import { describe, expect, it } from 'vitest';
import { SCAN_RULES } from '../../../src/proxy/pins/scan-rules.js';
import { patternsOf } from '../../../src/proxy/pins/rule-patterns.js';
import { scanTools, type ScanTool } from '../../../src/proxy/pins/scan.js';
import { LinearRegExp } from '../../../src/core/regexp/linear-regexp.js';

/**
 * Boundary "upstream -> client and terminal" (docs/SECURITY.md): an upstream's text is scanned in
 * linear time. Each rule of the scanner is fed 128 KB of each input that makes a backtracking
 * engine work hardest on its patterns (long runs of what a quantifier repeats, an opening that
 * never closes, the words a pattern starts with, over and over), and must finish within a CPU
 * bound that only a linear scan meets: `(\r?\n[ \t]*){8,}\S` took 82 s on 160k characters in V8,
 * and one description of "a" and 200,000 newlines held `server test` for 2 minutes.
 *
 * Why 128 KB (it was 1 MB, 24 CPU-s for the file, then 256 KB, 7.6): a scan that is quadratic
 * takes at least n² steps of a nanosecond or more, over 17 s on 128K characters, eleven times the
 * bound (RE2 run from every start, a quadratic scan with this engine, spent 3.5 CPU-s on only the
 * shortest eighth of the starts of "a and newlines" here); the slowest rule's linear scan of its worst input takes about 130 ms, a tenth of it. Both
 * gaps stay wide on a loaded machine, where CPU time moves far less than wall time.
 */
const SIZE = 128 * 1024;
const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);

/** The words every pattern of the rules begins or ends with, so each rule sees its own near-misses. */
const vocabulary = [...new Set(SCAN_RULES.flatMap(patternsOf).flatMap((p) => p.source.match(/[a-z_]{3,}/gi) ?? []))];

const WORST: Record<string, string> = {
  'a and newlines (the finding)': `a${'\n'.repeat(SIZE - 1)}`,
  'newlines and tabs': fill('\r\n\t '),
  spaces: fill(' '),
  'no-break spaces': fill('\u00A0'),
  'image links never closed': fill('!['),
  'links never closed': fill('](https://x?a='),
  'comments never closed': fill('<!--'),
  'URLs back to back': fill('http://'),
  'the rules words, no full stop': fill(`${vocabulary.join(' ')} `),
  'the rules words, glued': fill(vocabulary.join('')),
  'markup openers': fill('<[<|#'),
  'paths half written': fill('~/.ssh/.env id_.aws/.cursor/'),
};

const tool = (description: string, extra: Partial<ScanTool> = {}): ScanTool => ({
  server: 'upstream',
  tool: 'search_issues',
  definition: { name: 'search_issues', description, inputSchema: { type: 'object', properties: { sidenote: { type: 'string', description } } } },
  ...extra,
});

function cpuMs(work: () => void): number {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** Linear here means about a tenth of the bound for the slowest rule on 128 KB; a quadratic scan takes over ten times it. */
const BOUND_MS = 1500;

describe('every rule of the scanner runs in linear time on 128 KB of its worst case', () => {
  it('every pattern and mask compiles on the linear engine (no lookaround, no backreferences)', () => {
    for (const rule of SCAN_RULES) {
      for (const pattern of patternsOf(rule)) expect(() => new LinearRegExp(pattern), `${rule.id} ${pattern.source}`).not.toThrow();
    }
  });

  it.each(SCAN_RULES.filter((r) => r.kind !== 'tampered').map((r) => [r.id, r.name, r] as const))('%s %s', (_id, _name, rule) => {
    const times: Record<string, number> = {};
    for (const [what, input] of Object.entries(WORST)) {
      const subjects =
        rule.kind === 'mention' || rule.kind === 'collision' || rule.kind === 'confusable'
          ? [tool(input), tool('Sends mail.', { server: 'other', tool: 'send_email' }), tool('x', { server: 'third', tool: input.slice(0, 64 * 1024) })]
          : [tool(input)];
      times[what] = cpuMs(() => scanTools(subjects, [rule]));
    }
    const worst = Object.entries(times).sort((a, b) => b[1] - a[1])[0]!;
    expect(worst[1], `${rule.id} on ${worst[0]}: ${Math.round(worst[1])} ms`).toBeLessThan(BOUND_MS);
  });

  it('the finding as it was made: a description of "a" and 200,000 newlines is scanned in well under a second', () => {
    const ms = cpuMs(() => scanTools([tool(`a${'\n'.repeat(200_000)}`)]));
    expect(ms).toBeLessThan(2000);
  });

  it('many tools naming each other cost the text, not the text times the tools', () => {
    const names = Array.from({ length: 2000 }, (_, i) => `tool_number_${i}`);
    const text = names.join(' ');
    const tools = names.map((name, i) => tool(text, { server: `s${i % 50}`, tool: name }));
    const rule = SCAN_RULES.find((r) => r.kind === 'mention')!;
    // 100 tools of 30 KB each (about 0.5 s here): text times tools would be a hundred times that.
    const ms = cpuMs(() => scanTools(tools.slice(0, 100), [rule]));
    expect(ms).toBeLessThan(BOUND_MS);
  });
});
