import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * `mcpkit call --elicitation MODE` answers a server that asks for input during the call (here the
 * real server-everything, whose trigger-elicitation-request exists only for a client that declared
 * elicitation). The 2026-07-28 leg (an input_required result answered and retried) is the
 * conformance suite's sep-2322-client-request-state, in conformance-2026-clients.test.ts.
 */
describe('call --elicitation', () => {
  const config = () => writeConfig({ mcp_servers: { everything: SERVERS.everything } });

  it('accept-defaults answers each form with its defaults, and says on stderr what was asked and answered', async () => {
    const r = await runCli(['call', 'trigger-elicitation-request', '--elicitation', 'accept-defaults', '--json', '--config', config()], { env: cleanEnv() });
    expect(r.code, r.stderr).toBe(0);
    const raw = JSON.parse(
      /Raw result: (\{[\s\S]*\})/.exec(
        JSON.parse(r.stdout)
          .content.map((c: { text: string }) => c.text)
          .join(''),
      )![1]!,
    ) as {
      action: string;
      content: Record<string, unknown>;
    };
    expect(raw.action).toBe('accept');
    // Fields with a default get it; fields without one (name, email) are left out, as a person leaving them empty would.
    expect(raw.content).toMatchObject({ firstLine: 'It was a dark and stormy night.', integer: 42, number: 3.14, untitledMultipleSelectEnum: ['Guitar'] });
    expect(raw.content).not.toHaveProperty('name');
    expect(r.stderr).toContain('mcpkit: a server asked: Please provide inputs for the following fields:; answered accept with {');
  });

  it.each(['decline', 'cancel'])('%s answers each form so', async (mode) => {
    const r = await runCli(['call', 'trigger-elicitation-request', '--elicitation', mode, '--json', '--config', config()], { env: cleanEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`\\"action\\": \\"${mode}\\"`);
    expect(r.stderr).toContain(`answered ${mode} (--elicitation ${mode})`);
  });

  it('without it, servers are told mcpkit cannot be asked; a mode that does not exist is a usage error', async () => {
    const plain = await runCli(['call', 'trigger-elicitation-request', '--config', config()], { env: cleanEnv() });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('Error [NOT_FOUND]: No tool named "trigger-elicitation-request".');
    const bad = await runCli(['call', 'echo', 'message=x', '--elicitation', 'maybe', '--config', config()], { env: cleanEnv() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Expected --elicitation=maybe to be one of: accept-defaults, decline, cancel');
  });
});
