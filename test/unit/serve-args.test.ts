import { describe, expect, it } from 'vitest';
import { parseServeArgs, SERVE_BOOLEAN_FLAGS, SERVE_MULTI_FLAGS, SERVE_VALUE_FLAGS } from '../../src/cli/args/serve-args.js';
import Serve from '../../src/commands/serve.js';

describe('parseServeArgs (the fast path of `mcpkit serve`)', () => {
  it.each([
    [[], {}],
    [['--config', 'a.yaml'], { config: 'a.yaml' }],
    [['--config=a.yaml'], { config: 'a.yaml' }],
    [['--http', '--port', '0', '--view', 'v', '--eager'], { http: true, port: '0', view: 'v', eager: true }],
    [['--token=s3cret', '--host', '::1'], { token: 's3cret', host: '::1' }],
    [
      ['--http', '--allow-origin', 'https://a.example', '--allow-origin=https://b.example'],
      { http: true, 'allow-origin': ['https://a.example', 'https://b.example'] },
    ],
  ])('takes %j', (argv, expected) => {
    expect(parseServeArgs(argv)).toEqual(expected);
  });

  it.each([
    [['--help']],
    [['-h']],
    [['--config']],
    [['--config', '--help']],
    [['--config=']],
    [['--config', 'a', '--config', 'b']],
    [['--confg', 'a']],
    [['extra']],
    [['--json']],
    [['--http=yes']],
    [['--http', '--http']],
  ])('leaves %j to oclif', (argv) => {
    expect(parseServeArgs(argv)).toBeUndefined();
  });

  it('knows every flag the oclif command declares', () => {
    const declared = Object.keys({ ...Serve.baseFlags, ...Serve.flags })
      .filter((f) => f !== 'json')
      .sort();
    expect([...SERVE_VALUE_FLAGS, ...SERVE_BOOLEAN_FLAGS, ...SERVE_MULTI_FLAGS].sort()).toEqual(declared);
  });
});
