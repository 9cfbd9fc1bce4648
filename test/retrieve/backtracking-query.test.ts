import { describe, expect, it } from 'vitest';
import { ROOT, spawnTracked, stopChild } from '../helpers/cli.js';
import { countNewlines, lineText } from '../../src/retrieve/patterns/line-matcher.js';

/**
 * Expressions only V8's backtracking engine runs (-i, \p{..}) whose backtracking is exponential in
 * what [^x] or \P{..} spans: line by line that is a few characters; over a file's whole text, where
 * those classes cross newlines, it would be thousands, and the search would not end. Each runs in
 * a child, so that a matcher that does not end fails the test at its deadline instead of holding
 * the suite; the deadline is generous (line by line takes milliseconds).
 */
const DEADLINE_MS = 20_000;

const CHILD = `
import { compileQuery } from './src/retrieve/patterns/query.ts';
import { countNewlines, lineText } from './src/retrieve/patterns/line-matcher.ts';
const { query, ignoreCase, text } = JSON.parse(process.argv[1]);
const bytes = Buffer.from(text);
const { matcher } = compileQuery({ query, regex: true, ignoreCase });
const lines = matcher(bytes, bytes.length).map((h) => (countNewlines(bytes, 0, h.start) + 1) + ':' + lineText(bytes, h));
process.stdout.write(JSON.stringify(lines));
`;

/** The matcher's lines (`n:text`) for the query on text, from a child; rejects when it does not end by the deadline. */
function matchedInChild(query: string, ignoreCase: boolean, text: string): Promise<string[]> {
  const child = spawnTracked(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD, JSON.stringify({ query, ignoreCase, text })], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stopChild(child).then(() => reject(new Error(`the matcher for ${query} did not end within ${DEADLINE_MS} ms`)));
    }, DEADLINE_MS);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(out) as string[]);
      else reject(new Error(`the child ended with ${code}: ${err}`));
    });
  });
}

/** Every line tested on its own, as the search did before any whole-text test. */
function lineByLine(text: string, source: string, flags: string): string[] {
  const bytes = Buffer.from(text);
  const re = new RegExp(source, flags);
  const out: string[] = [];
  for (let start = 0, n = 1; start < bytes.length; n++) {
    let end = bytes.indexOf(10, start);
    if (end < 0) end = bytes.length;
    const line = lineText(bytes, { start, end });
    if (re.test(line)) out.push(`${countNewlines(bytes, 0, start) + 1}:${line}`);
    start = end + 1;
  }
  return out;
}

describe('an expression only the backtracking engine runs is tested line by line, not over the whole text', () => {
  it.each([
    // -i: V8's linear engine refuses the i flag. Only the last line has a Z (or z), past the first 16 K characters.
    ['-i with a negated class', '(?:[^Z]+)+Z', true, `${'abcdefgh\n'.repeat(2000)}ab Zed\n`, 'iu'],
    // \P{..} keeps the u flag, which the linear engine refuses; no line has an upper-case letter.
    ['\\P{..} that crosses newlines', '(?:\\P{Lu}+)+\\p{Lu}', false, 'abcdefgh\n'.repeat(4), 'u'],
  ])(
    '%s: %s ends with the lines line-by-line testing finds',
    async (_label, query, ignoreCase, text, flags) => {
      const expected = lineByLine(text, query, flags);
      expect(await matchedInChild(query, ignoreCase, text)).toEqual(expected);
      if (ignoreCase) expect(expected).toEqual(['2001:ab Zed']);
    },
    DEADLINE_MS + 10_000,
  );
});
