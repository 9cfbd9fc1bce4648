import { describe, expect, it } from 'vitest';
import { forwardRequest } from '../helpers/forward-request.js';

const token = 'a'.repeat(48);
const sent = (...fields: string[]) => fields.map((f) => `${f}\0`).join('');
const whole = sent(token, 'auth', 'http://localhost:1/mcp', '/tmp/x', 'MCP_CONFORMANCE_SCENARIO=auth/basic-cimd', 'CONTEXT={"a":"b=c"}', 'EMPTY=', '');

describe("the client host reads a forward's request (forward.sh)", () => {
  it.each<[string, string, ReturnType<typeof forwardRequest>]>([
    [
      'a whole request: kind, URL, folder and environment (a value may hold = or be empty)',
      whole,
      {
        kind: 'auth',
        url: 'http://localhost:1/mcp',
        cwd: '/tmp/x',
        env: { MCP_CONFORMANCE_SCENARIO: 'auth/basic-cimd', CONTEXT: '{"a":"b=c"}', EMPTY: '' },
      },
    ],
    ['an empty environment', sent(token, 'plain', 'http://u', '/', ''), { kind: 'plain', url: 'http://u', cwd: '/', env: {} }],
    ['nothing yet', '', 'incomplete'],
    ['the token, half sent', token.slice(0, 10), 'incomplete'],
    ['the environment, not yet closed', whole.slice(0, -1), 'incomplete'],
    ['the folder, not yet ended', sent(token, 'auto', 'http://u') + '/tm', 'incomplete'],
    ['another token: refused at once', sent('b'.repeat(48)), 'refused'],
    ['a shorter token', sent(token.slice(1), 'auth'), 'refused'],
    ['no token', sent('', 'auth', 'http://u', '/', ''), 'refused'],
    ['an unknown kind of client', sent(token, 'shell', 'http://u', '/', ''), 'refused'],
    ['no URL', sent(token, 'auth', '', '/', 'A=1', ''), 'refused'],
    ['an environment entry without a name', sent(token, 'auth', 'http://u', '/', '=x', ''), 'refused'],
    ['more than a forward sends', token + '\0' + 'x'.repeat(1 << 20), 'refused'],
    ["no NUL yet, a little past the token's length", 'x'.repeat(token.length + 100), 'incomplete'],
    ["no NUL well past the token's length: refused, not read on", 'x'.repeat(token.length + 101), 'refused'],
    ['the token, then no NUL', token + 'x'.repeat(101), 'refused'],
  ])('%s', (_, request, read) => {
    expect(forwardRequest(request, token)).toEqual(read);
  });
});
