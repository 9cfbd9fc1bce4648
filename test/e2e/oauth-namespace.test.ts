import { parseErrorResponse, registerClient } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { hasMcporter, mcporter } from '../helpers/mcporter.js';
import { SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * Every path of the OAuth namespace answers in OAuth's error shape (RFC 6749 section 5.2, RFC 7591
 * section 3.2.2): what an OAuth client tries after a 401 (discovery, then /register, /authorize,
 * /token) is told that this server takes its operator's tokens, so a client whose token was
 * rotated away says so instead of "Invalid OAuth error response". The SDK's own OAuth client and
 * mcporter are the readers.
 */

let serve: InProcessServe;
let config = '';

beforeAll(async () => {
  config = writeConfig({ mcp_servers: { everything: SERVERS.everything }, serve: { token: 'admin-token', exposure: 'direct' } });
  serve = await serveHttpInProcess(config);
}, 60_000);
afterAll(async () => {
  await serve?.close();
});

const PATHS: [string, string, RequestInit['body']?][] = [
  ['POST', '/register', JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/cb'], client_name: 'x' })],
  ['POST', '/token', 'grant_type=client_credentials'],
  ['GET', '/authorize?response_type=code&client_id=x'],
  ['POST', '/revoke', 'token=x'],
  ['GET', '/register/extra'],
  ['GET', '/.well-known/oauth-authorization-server'],
  ['GET', '/.well-known/openid-configuration'],
  ['GET', '/.well-known/oauth-protected-resource/mcp'],
];

describe('the OAuth namespace of serve --http', () => {
  it.each(PATHS)('%s %s: 404 in OAuth error shape, for anyone, saying where tokens come from', async (method, path, body) => {
    const response = await fetch(`${serve.url}${path}`, { method, ...(body ? { body } : {}) });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const answer = (await response.json()) as Record<string, unknown>;
    expect(answer).toEqual({ error: 'not_found', error_description: expect.stringContaining('serve.token, serve.clients') });
  });

  it("the SDK's OAuth client reads it as an OAuth error, with its description", async () => {
    const parsed = await parseErrorResponse(await fetch(`${serve.url}/token`, { method: 'POST', body: 'grant_type=client_credentials' }));
    expect(parsed.message).toContain('is not an authorization server');
    expect(parsed.message).not.toContain('Invalid OAuth error response');
    await expect(registerClient(serve.url, { clientMetadata: { redirect_uris: ['http://127.0.0.1:1/cb'], client_name: 'probe' } })).rejects.toThrow(
      /A token it refused is not recognised \(rotated, removed or mistyped\): ask the operator for the current one/,
    );
  });

  it('a route of its own is still answered in its own shape', async () => {
    const response = await fetch(`${serve.url}/nothing-here`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });

  it.skipIf(!hasMcporter)(
    'after clients rotate, mcporter with the old token says it is not recognised, without waiting for a browser',
    async () => {
      const added = await runCommand(['clients', 'add', 'ci-bot', '--config', config]);
      expect(added.code, added.stderr).toBe(0);
      const token = added.stdout.trim();
      const entry = { gateway: { url: `${serve.url}/mcp`, headers: { Authorization: 'Bearer ${GATEWAY_TOKEN}' } } };
      // serve follows the config: the new client is known within a moment.
      expect(await waitFor(async () => (await mcporter(entry, ['list', 'gateway'], { GATEWAY_TOKEN: token })).out.includes('echo'), 20_000, 250)).toBe(true);
      const rotated = await runCommand(['clients', 'rotate', 'ci-bot', '--config', config]);
      expect(rotated.code, rotated.stderr).toBe(0);
      let refused = { out: '', ms: 0, code: null as number | null };
      expect(
        await waitFor(async () => !(refused = await mcporter(entry, ['list', 'gateway'], { GATEWAY_TOKEN: token })).out.includes('echo'), 20_000, 250),
      ).toBe(true);
      expect(refused.out).toContain('A token it refused is not recognised (rotated, removed or mistyped)');
      expect(refused.out).not.toContain('Invalid OAuth error response');
      // Not mistaken for a login to do: mcporter does not wait for a browser (30 s).
      expect(refused.out).not.toContain('Waiting for browser approval');
    },
    120_000,
  );
});
