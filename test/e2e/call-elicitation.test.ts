import { describe, expect, it } from 'vitest';
import { cleanEnv, runCommand } from '../helpers/cli.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * `mcpkit call --elicitation MODE` answers a server that asks for input during the call (here the
 * real server-everything, whose trigger-elicitation-request exists only for a client that declared
 * elicitation, and whose form requires a name without a default). The 2026-07-28 leg (an
 * input_required result answered and retried) is the conformance suite's
 * sep-2322-client-request-state, and accepting defaults its elicitation-sep1034-client-defaults,
 * in conformance-2026-clients.test.ts.
 */
describe.concurrent('call --elicitation', () => {
  const config = () => writeConfig({ mcp_servers: { everything: SERVERS.everything } });
  const rawResult = (stdout: string) =>
    JSON.parse(
      /Raw result: (\{[\s\S]*\})/.exec(
        JSON.parse(stdout)
          .content.map((c: { text: string }) => c.text)
          .join(''),
      )![1]!,
    ) as {
      action: string;
      content?: Record<string, unknown>;
    };

  it('ask puts each field to the person (here answers on stdin, a line each), again when one cannot be taken', async () => {
    // name, check, firstLine, email, homepage, birthdate, integer (a bad answer first), number,
    // three single and multi selects by number, title or value, the legacy enum's default; then send.
    const answers = ['Ada', 'y', '', '', '', '', 'abc', '7', '', '2', '1,3', 'Green Lantern', 'Trout', '', 'y'];
    const r = await runCommand(['call', 'trigger-elicitation-request', '--elicitation', 'ask', '--json', '--config', config()], {
      env: cleanEnv(),
      input: `${answers.join('\n')}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(rawResult(r.stdout)).toEqual({
      action: 'accept',
      content: {
        name: 'Ada',
        check: true,
        firstLine: 'It was a dark and stormy night.',
        integer: 7,
        number: 3.14,
        untitledSingleSelectEnum: 'Rachel',
        untitledMultipleSelectEnum: ['Guitar', 'Violin'],
        titledSingleSelectEnum: 'hero-2',
        titledMultipleSelectEnum: ['fish-3'],
        legacyTitledEnum: 'pet-1',
      },
    });
    expect(r.stderr).toContain('mcpkit: a server asks: Please provide inputs for the following fields:');
    expect(r.stderr).toContain('  not an integer');
    expect(r.stderr).toContain('mcpkit: answered accept');
  });

  it('ask cancels at the end of stdin, and refuses --args - (both would read stdin)', async () => {
    const ended = await runCommand(['call', 'trigger-elicitation-request', '--elicitation', 'ask', '--json', '--config', config()], {
      env: cleanEnv(),
      input: 'Ada\n',
    });
    expect(ended.code, ended.stderr).toBe(0);
    expect(rawResult(ended.stdout).action).toBe('cancel');
    const both = await runCommand(['call', 'echo', '--args', '-', '--elicitation', 'ask', '--config', config()], { env: cleanEnv(), input: '{}' });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--elicitation ask reads its answers from stdin, where --args - reads the arguments.');
  });

  it('accept-defaults declines a form that requires a field without a default, and says why', async () => {
    const r = await runCommand(['call', 'trigger-elicitation-request', '--elicitation', 'accept-defaults', '--json', '--config', config()], {
      env: cleanEnv(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(rawResult(r.stdout).action).toBe('decline');
    expect(r.stderr).toContain(
      'mcpkit: a server asked: Please provide inputs for the following fields:; answered decline (the form requires name, which has no default) (--elicitation accept-defaults)',
    );
  });

  it.each(['decline', 'cancel'])('%s answers each form so', async (mode) => {
    const r = await runCommand(['call', 'trigger-elicitation-request', '--elicitation', mode, '--json', '--config', config()], { env: cleanEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(rawResult(r.stdout).action).toBe(mode);
    expect(r.stderr).toContain(`answered ${mode} (--elicitation ${mode})`);
  });

  it('without it, servers are told mcpkit cannot be asked; a mode that does not exist is a usage error', async () => {
    const plain = await runCommand(['call', 'trigger-elicitation-request', '--config', config()], { env: cleanEnv() });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('Error [NOT_FOUND]: No tool named "trigger-elicitation-request".');
    const bad = await runCommand(['call', 'echo', 'message=x', '--elicitation', 'maybe', '--config', config()], { env: cleanEnv() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Expected --elicitation=maybe to be one of: ask, accept-defaults, decline, cancel');
  });
});
