import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_KINDS, routePath, type Route } from '../../src/mcp/access/route-access.js';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { SERVERS } from '../helpers/upstreams.js';

/**
 * Boundary "client -> client" at the door (docs/SECURITY.md): every route of serve --http, taken
 * from its route table (a kind added there fails this test until it is classed), refuses a
 * request without a credential once anything is protected, and a named client outside the routes
 * its entry gives it; a credential that is valid but does not open the route is told so.
 */
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
};

/** The route of each kind, as a request names it (views `docs` and `ops` exist; the client may open `docs` only). */
const routes: Record<(typeof ROUTE_KINDS)[number], { route: Route; method: 'GET' | 'POST' }> = {
  mcp: { route: { kind: 'mcp' }, method: 'POST' },
  view: { route: { kind: 'view', view: 'ops' }, method: 'POST' },
  views: { route: { kind: 'views' }, method: 'GET' },
  'view-info': { route: { kind: 'view-info', view: 'ops' }, method: 'GET' },
  health: { route: { kind: 'health' }, method: 'GET' },
  metrics: { route: { kind: 'metrics' }, method: 'GET' },
};

let served: InProcessServe;
beforeAll(async () => {
  const dir = tempDir();
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: { everything: SERVERS.everything },
      tool_views: { docs: { servers: ['everything'] }, ops: { servers: ['everything'] } },
      serve: { clients: { reader: { token: 'tok-reader', views: ['docs'] } }, token: 'tok-admin' },
    }),
  );
  served = await serveHttpInProcess(config, { env: cleanEnv() });
});
afterAll(async () => served?.close());

async function ask(path: string, method: 'GET' | 'POST', token?: string): Promise<{ status: number; body: string; challenge: string | null }> {
  const response = await fetch(`${served.url}${path}`, {
    method,
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(method === 'POST' ? { body: JSON.stringify(INIT) } : {}),
  });
  const body = await response.text();
  return { status: response.status, body, challenge: response.headers.get('www-authenticate') };
}

describe('every route of the route table, at the door', () => {
  it.each(ROUTE_KINDS.map((kind) => [kind]))('%s: no credential is let in (only the bare /health answers)', async (kind) => {
    const { route, method } = routes[kind];
    const { status, body } = await ask(routePath(route), method);
    if (kind === 'health') {
      expect(status).toBe(200);
      expect(JSON.parse(body)).toEqual({ status: expect.any(String) });
    } else {
      expect(status).toBe(401);
      // A token this server does not know is a wrong one: 401 and invalid_token.
      const wrong = await ask(routePath(route), method, 'tok-nobody');
      expect([wrong.status, wrong.challenge]).toEqual([401, 'Bearer error="invalid_token"']);
    }
  });

  it('OAuth discovery under /.well-known/ gets a 404 an OAuth client can read (error is a string)', async () => {
    const { status, body } = await ask('/.well-known/oauth-authorization-server', 'GET');
    expect(status).toBe(404);
    expect(JSON.parse(body)).toEqual({ error: 'not_found', error_description: expect.stringContaining('not an authorization server') });
  });

  it.each(ROUTE_KINDS.map((kind) => [kind]))('%s: a named client is let in only where its entry opens', async (kind) => {
    const { route, method } = routes[kind];
    const { status, body } = await ask(routePath(route), method, 'tok-reader');
    if (kind === 'health') {
      expect(status).toBe(200);
      expect(JSON.parse(body)).toEqual({ status: expect.any(String) });
    } else if (kind === 'views') {
      expect(status).toBe(200);
      expect(body).toContain('docs');
      expect(body).not.toContain('ops');
      expect(body).not.toContain('"default"');
    } else {
      // A valid credential without access: 403 and insufficient_scope, so a client does not take it for "log in" (RFC 6750).
      expect(status).toBe(403);
      expect((await ask(routePath(route), method, 'tok-reader')).challenge).toMatch(/^Bearer error="insufficient_scope"/);
    }
    // Its own view is open to it.
    if (kind === 'view') expect((await ask('/view/docs/mcp', 'POST', 'tok-reader')).status).toBe(200);
  });
});
