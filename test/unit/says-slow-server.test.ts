import { describe, expect, it } from 'vitest';
import { saysSlowServer } from '../../src/cli/terminal/output.js';

describe('saysSlowServer: a long wait is said to a person, and to a script that asks for more', () => {
  it.each([
    ['a terminal', {}, true, true],
    ['a pipe', {}, false, false],
    ['a pipe, MCPKIT_LOG_LEVEL=info', { MCPKIT_LOG_LEVEL: 'info' }, false, true],
    ['a pipe, MCPKIT_LOG_LEVEL=debug', { MCPKIT_LOG_LEVEL: 'debug' }, false, true],
    ['a pipe, MCPKIT_LOG_LEVEL=warn', { MCPKIT_LOG_LEVEL: 'warn' }, false, false],
    ['a terminal, MCPKIT_LOG_LEVEL=silent', { MCPKIT_LOG_LEVEL: 'silent' }, true, true],
  ])('%s', (_where, env, tty, said) => {
    expect(saysSlowServer(env, tty)).toBe(said);
  });
});
