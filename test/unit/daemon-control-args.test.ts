import { describe, expect, it } from 'vitest';
import { parseDaemonControlArgs } from '../../src/cli/args/daemon-control-args.js';

/** Which `daemon start|stop|status` lines skip oclif, and which oclif answers (help, --jq, --all, anything it would refuse). */
describe('a plain daemon start|stop|status line', () => {
  it.each<[string[], ReturnType<typeof parseDaemonControlArgs>]>([
    [['start'], { verb: 'start', json: false }],
    [['stop'], { verb: 'stop', json: false }],
    [['status'], { verb: 'status', json: false }],
    [['status', '--json'], { verb: 'status', json: true }],
    [['start', '--config', './m.yaml'], { verb: 'start', config: './m.yaml', json: false }],
    [['start', '--config=/a b/m.yaml', '--json'], { verb: 'start', config: '/a b/m.yaml', json: true }],
    [['stop', '--json', '--config', 'm.yaml'], { verb: 'stop', config: 'm.yaml', json: true }],
    [['restart'], undefined], // not one of the three
    [['list'], undefined],
    [['run', '--config', 'm.yaml'], undefined],
    [[], undefined],
    [['stop', '--all'], undefined], // oclif: --all is exclusive with --config
    [['status', '--help'], undefined],
    [['status', '-h'], undefined],
    [['status', '--jq', '.running'], undefined],
    [['status', 'extra'], undefined], // oclif refuses a stray word
    [['start', '--config'], undefined], // no value: oclif says so
    [['start', '--config', ''], undefined],
    [['start', '--config='], undefined],
    [['start', '--config', '--json'], undefined],
    [['start', '--config', 'a', '--config', 'b'], undefined], // given twice
    [['start', '--json', '--json'], undefined],
    [['start', '--json=true'], undefined],
    [['start', '--', '--json'], undefined],
    [['start', '--configx', 'm.yaml'], undefined],
  ])('%j', (argv, want) => {
    expect(parseDaemonControlArgs(argv)).toEqual(want);
  });
});
