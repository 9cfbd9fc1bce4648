import { describe, expect, it } from 'vitest';
import { parseCompleteNamesArgs } from '../../src/cli/complete-names-args.js';

/** Which `complete-names` lines skip oclif (the ones the completion functions write), and which oclif answers. */
describe('a plain complete-names line', () => {
  it.each<[string[], ReturnType<typeof parseCompleteNamesArgs>]>([
    [['servers'], { kind: 'servers' }],
    [['tools', '--config', './m.yaml'], { kind: 'tools', config: './m.yaml' }],
    [['roots', '--config=/a b/m.yaml'], { kind: 'roots', config: '/a b/m.yaml' }],
    [['composites', '--config', 'has space.yaml'], { kind: 'composites', config: 'has space.yaml' }],
    [[], undefined], // oclif says the kind is missing
    [['bogus'], undefined], // oclif names the kinds
    [['servers', '--json'], undefined], // oclif prints JSON
    [['servers', '--jq', '.[]'], undefined],
    [['servers', '--help'], undefined],
    [['--config', 'm.yaml', 'servers'], { kind: 'servers', config: 'm.yaml' }], // as oclif reads it
    [['servers', '--config'], undefined], // no value: oclif says so
    [['servers', '--config', ''], undefined],
    [['servers', '--config='], undefined],
    [['servers', '--config', '--json'], undefined],
    [['servers', '--config', 'm.yaml', '--json'], undefined],
    [['servers', '--config=m.yaml', 'extra'], undefined],
    [['servers', 'extra'], undefined],
    [['servers', '--configx', 'm.yaml'], undefined],
    [['servers', '--config', 'a', '--config', 'b'], undefined], // given twice
    [['servers', '--', '--config', 'm.yaml'], undefined],
    [['servers', '-c', 'm.yaml'], undefined],
  ])('%j', (argv, want) => {
    expect(parseCompleteNamesArgs(argv)).toEqual(want);
  });
});
