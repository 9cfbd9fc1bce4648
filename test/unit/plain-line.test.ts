import { describe, expect, it } from 'vitest';
import { parsePlainLine, type PlainGrammar } from '../../src/cli/args/plain-line.js';

const GRAMMAR: PlainGrammar = {
  config: { type: 'string', short: 'c' },
  glob: { type: 'string', short: 'g', multiple: true },
  json: { type: 'boolean' },
  regex: { type: 'boolean', short: 'r' },
  'ignore-case': { type: 'boolean', short: 'i' },
};

describe('parsePlainLine (the one grammar of the lines read without oclif)', () => {
  it.each([
    [[], { values: {}, positionals: [], terminated: false }],
    [['x', '--config', 'a.yaml'], { values: { config: 'a.yaml' }, positionals: ['x'], terminated: false }],
    [['--config=a=b.yaml', 'x'], { values: { config: 'a=b.yaml' }, positionals: ['x'], terminated: false }],
    [['-c', 'a.yaml', '-r', '-i'], { values: { config: 'a.yaml', regex: true, 'ignore-case': true }, positionals: [], terminated: false }],
    [['-g', '*.ts', '--glob', '!x/', '--glob=y'], { values: { glob: ['*.ts', '!x/', 'y'] }, positionals: [], terminated: false }],
    [['--config', ''], { values: { config: '' }, positionals: [], terminated: false }], // empty, as written: the caller decides
    [['-'], { values: {}, positionals: ['-'], terminated: false }],
    [['--', '--json', '-x'], { values: {}, positionals: ['--json', '-x'], terminated: true }],
  ])('reads %j', (argv, expected) => {
    expect(parsePlainLine(GRAMMAR, argv)).toEqual(expected);
  });

  it.each([
    [['--help'], 'a flag it does not declare'],
    [['--confg', 'a'], 'a typo'],
    [['--config'], 'a value missing'],
    [['--config', '--json'], 'a value that looks like a flag'],
    [['--config', '-'], 'a dash as a value (stdin to oclif)'],
    [['--config', 'a', '--config', 'b'], 'a flag given twice'],
    [['--json', '--json'], 'a boolean given twice'],
    [['--json=yes'], 'a boolean with a value'],
    [['-ri'], 'grouped short flags'],
    [['-ca.yaml'], 'a short flag with its value joined'],
    [['-5'], 'a number that looks like a flag'],
  ])('leaves %j to oclif (%s)', (argv) => {
    expect(parsePlainLine(GRAMMAR, argv)).toBeUndefined();
  });

  it('refuses words where the line takes none', () => {
    expect(parsePlainLine(GRAMMAR, ['x'], { positionals: false })).toBeUndefined();
    expect(parsePlainLine(GRAMMAR, ['--json'], { positionals: false })).toEqual({ values: { json: true }, positionals: [], terminated: false });
  });
});
