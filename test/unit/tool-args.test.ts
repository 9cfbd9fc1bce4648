import { describe, expect, it } from 'vitest';
import { fieldSpecs } from '../../src/cli/args/field-specs.js';
import { parseToolArgs } from '../../src/cli/args/tool-args.js';
import { inputJsonSchema } from '../../src/core/schema.js';
import { getSnippet } from '../../src/tools/retrieve/open-file.js';
import { search } from '../../src/tools/retrieve/search.js';

const searchSpecs = fieldSpecs(inputJsonSchema(search.input), search.command);
const snippetSpecs = fieldSpecs(inputJsonSchema(getSnippet.input), getSnippet.command);

describe('parseToolArgs (the fast path parser)', () => {
  it.each([
    [['TODO'], { flags: {}, positionals: ['TODO'], json: false, noDaemon: false, habits: [] }],
    [['TODO', '--json'], { flags: {}, positionals: ['TODO'], json: true, noDaemon: false, habits: [] }],
    [['--json', 'TODO', '--config', 'c.yaml'], { flags: {}, positionals: ['TODO'], json: true, config: 'c.yaml', noDaemon: false, habits: [] }],
    [['TODO', '--config=c.yaml'], { flags: {}, positionals: ['TODO'], json: false, config: 'c.yaml', noDaemon: false, habits: [] }],
    [
      ['x', '--limit', '5', '--regex', '-i'],
      { flags: { limit: 5, regex: true, 'ignore-case': true }, positionals: ['x'], json: false, noDaemon: false, habits: [] },
    ],
    [['x', '-g', '*.ts', '-C', '2'], { flags: { glob: ['*.ts'], context: 2 }, positionals: ['x'], json: false, noDaemon: false, habits: [] }],
    [['x', '-n', '5'], undefined], // -n is ripgrep's --line-number, not a limit: two positionals, oclif reports it
    [['x', '-n', '-F'], { flags: {}, positionals: ['x'], json: false, noDaemon: false, habits: ['line-number', 'fixed-strings'] }], // ripgrep's habits, said and done
    [
      ['-e', 'a', '--regexp', 'b', '-g', '*.ts', '-g', '!x/'],
      { flags: { regexp: ['a', 'b'], glob: ['*.ts', '!x/'] }, positionals: [], json: false, noDaemon: false, habits: [] },
    ],
    [
      ['x', '-w', '-v', '-l', '-t', 'ts'],
      {
        flags: { 'word-regexp': true, 'invert-match': true, 'files-with-matches': true, type: ['ts'] },
        positionals: ['x'],
        json: false,
        noDaemon: false,
        habits: [],
      },
    ],
    [[], { flags: {}, positionals: [], json: false, noDaemon: false, habits: [] }], // the tool says a query or -e is needed
    [['x', '--glob=**/*.md', '--repo', 'docs'], { flags: { glob: ['**/*.md'], repo: 'docs' }, positionals: ['x'], json: false, noDaemon: false, habits: [] }],
    [['x', '--glob=a=b'], { flags: { glob: ['a=b'] }, positionals: ['x'], json: false, noDaemon: false, habits: [] }],
    [['--', '-x', '--json'], undefined], // two positionals: oclif reports the extra one
    [['--', '-x'], { flags: {}, positionals: ['-x'], json: false, noDaemon: false, habits: [] }],
    [['-'], { flags: {}, positionals: ['-'], json: false, noDaemon: false, habits: [] }],
  ])('search %j', (argv, expected) => {
    expect(parseToolArgs(searchSpecs, argv, { habits: search.command!.habits! })).toEqual(expected);
  });

  it.each([
    [['x', 'y']], // one argument too many
    [['x', '--help']],
    [['x', '-h']],
    [['x', '--limt', '3']], // a typo
    [['x', '--limit']], // no value
    [['x', '--limit', '-3']], // a value that looks like a flag
    [['x', '--limit', 'abc']], // not a number
    [['x', '--limit', '1', '--limit', '2']], // given twice
    [['x', '--regex=true']], // booleans take no value
    [['x', '--no-regex']], // only flags defaulting to true have --no-
    [['x', '--regex', '--regex']],
    [['x', '-z']],
    [['x', '-in']], // bundled short flags
    [['x', '--config']],
    [['x', '--json', '--json']],
  ])('defers %j to oclif', (argv) => {
    expect(parseToolArgs(searchSpecs, argv)).toBeUndefined();
  });

  it('takes --no-daemon only on a tool that may run in the daemon (otherwise oclif reports it)', () => {
    expect(parseToolArgs(searchSpecs, ['x', '--no-daemon'], { daemonFlag: true })).toEqual({
      flags: {},
      positionals: ['x'],
      json: false,
      noDaemon: true,
      habits: [],
    });
    expect(parseToolArgs(searchSpecs, ['x', '--no-daemon'])).toBeUndefined();
    expect(parseToolArgs(searchSpecs, ['x', '--no-daemon', '--no-daemon'], { daemonFlag: true })).toBeUndefined();
    expect(parseToolArgs(searchSpecs, ['x', '--no-daemon=1'], { daemonFlag: true })).toBeUndefined();
  });

  it('parses snippet ranges and leaves a missing path to oclif', () => {
    expect(parseToolArgs(snippetSpecs, ['a.md', '--start', '2', '--end', '4'])).toEqual({
      flags: { start: 2, end: 4 },
      positionals: ['a.md'],
      json: false,
      noDaemon: false,
      habits: [],
    });
    expect(parseToolArgs(snippetSpecs, ['--start', '2'])).toBeUndefined();
  });
});
