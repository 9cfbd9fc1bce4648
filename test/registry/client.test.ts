import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorDetail, RegistryClient, retryAfterMs, type ClientOptions } from '../../src/registry/client.js';
import { startRegistry } from '../fixtures/registry-server.mjs';

type Registry = Awaited<ReturnType<typeof startRegistry>>;
let registry: Registry;
let locked: Registry;
const slept: number[] = [];
const client = (options: Partial<ClientOptions> = {}) =>
  new RegistryClient({ url: registry.url, backoffMs: 5, sleep: async (ms) => void slept.push(ms), ...options });

const older = (version: string) => ({
  server: { name: 'io.github.21st-dev/magic-mcp', description: 'an older release', version },
  _meta: {
    'io.modelcontextprotocol.registry/official': { status: 'active', publishedAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z', isLatest: false },
  },
});

beforeAll(async () => {
  registry = await startRegistry({ extraVersions: [older('0.0.40')] });
  locked = await startRegistry({ apiKey: 'sesame', forbiddenTenant: 'banned' });
});
afterAll(async () => {
  await registry.close();
  await locked.close();
});
beforeEach(() => {
  slept.length = 0;
  registry.control.failures.length = 0;
  registry.control.delayMs = 0;
  registry.control.malformed = false;
  registry.control.requests.length = 0;
});

describe('RegistryClient against a local registry', () => {
  it('pages through all 464 servers with cursors, in order, without repeats', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client().listServers({ limit: 100, cursor, version: 'latest' });
      names.push(...page.servers.map((e) => e.server.name));
      cursor = page.metadata?.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(names).toHaveLength(464);
    expect(new Set(names).size).toBe(464);
    expect(names).toEqual(registry.entries.map((e: { server: { name: string } }) => e.server.name)); // the data is sorted by name
  });

  it('passes search, updated_since and version, and leaves out what is not given', async () => {
    const found = await client().listServers({ search: 'MAGIC', version: 'latest' });
    expect(found.servers.map((e) => e.server.name)).toContain('io.github.21st-dev/magic-mcp');
    expect(found.servers.every((e) => `${e.server.name} ${e.server.description}`.toLowerCase().includes('magic'))).toBe(true);
    const all = await client().listServers({ search: 'magic-mcp' });
    expect(all.servers.map((e) => e.server.version)).toEqual(['0.0.40', '0.0.46']);
    const none = await client().listServers({ updated_since: '2030-01-01T00:00:00Z' });
    expect(none.servers).toEqual([]);
    expect(registry.control.requests.at(-1)!.query).toEqual({ updated_since: '2030-01-01T00:00:00Z' });
  });

  it('gets one version (latest by default) and lists versions, URL-encoding names', async () => {
    expect((await client().getServer('io.github.21st-dev/magic-mcp')).server.version).toBe('0.0.46');
    expect((await client().getServer('io.github.21st-dev/magic-mcp', '0.0.40')).server.description).toBe('an older release');
    expect(registry.control.requests.at(-1)!.path).toBe('/v0.1/servers/io.github.21st-dev%2Fmagic-mcp/versions/0.0.40');
    const versions = await client().listVersions('io.github.21st-dev/magic-mcp');
    expect(versions.servers.map((e) => e.server.version)).toEqual(['0.0.46', '0.0.40']);
  });

  it('says which server and version were not found', async () => {
    const error = await client()
      .getServer('io.github.nobody/nothing', '9.9.9')
      .catch((e) => e);
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe('Server not found: io.github.nobody/nothing (version: 9.9.9)');
    await expect(client().listVersions('io.github.nobody/nothing')).rejects.toThrow('Server not found: io.github.nobody/nothing');
  });

  it.each([
    [401, 'AUTH_FAILED', 'Authentication failed: injected 401'],
    [403, 'FORBIDDEN', 'Access denied: injected 403'],
    [400, 'UPSTREAM_ERROR', 'API request failed (400): injected 400'],
  ])('reports %i as %s without retrying', async (status, code, message) => {
    registry.control.failNext({ status });
    const error = await client()
      .listServers()
      .catch((e) => e);
    expect([error.code, error.message]).toEqual([code, message]);
    expect(slept).toEqual([]);
  });

  it('retries 5xx with doubling backoff, then reports the last error', async () => {
    registry.control.failNext({ status: 503, times: 2 });
    expect((await client().listServers({ limit: 1 })).servers).toHaveLength(1);
    expect(slept).toEqual([5, 10]);
    registry.control.failNext({ status: 500, times: 10, body: 'database down' });
    const error = await client({ retries: 2 })
      .listServers()
      .catch((e) => e);
    expect([error.code, error.message]).toEqual(['UPSTREAM_ERROR', 'API request failed (500): database down']);
    expect(error.details).toMatchObject({ status: 500, attempts: 3 });
  });

  it('honours Retry-After on 429, and reports a wait longer than it will make', async () => {
    registry.control.failNext({ status: 429, retryAfter: 2 });
    await client().listServers({ limit: 1 });
    expect(slept).toEqual([2000]);
    registry.control.failNext({ status: 429, retryAfter: 3600, body: { detail: 'slow down' } });
    const error = await client()
      .listServers()
      .catch((e) => e);
    expect([error.code, error.message]).toEqual(['RATE_LIMITED', 'Rate limit exceeded: slow down']);
    expect(error.details.retry_after_ms).toBe(3_600_000);
    expect(error.hint).toContain('3600 s');
  });

  it('times out a slow registry, retrying first', async () => {
    registry.control.delayMs = 300;
    const error = await client({ timeoutMs: 50, retries: 1 })
      .listServers()
      .catch((e) => e);
    expect(error.code).toBe('TIMEOUT');
    expect(error.details).toMatchObject({ timeout_ms: 50, attempts: 2 });
  });

  it('reports a registry that cannot be reached', async () => {
    const error = await new RegistryClient({ url: 'http://127.0.0.1:9', retries: 0 }).listServers().catch((e) => e);
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain('Could not reach the registry at http://127.0.0.1:9');
  });

  it.each([
    ['text', 'the body is not JSON'],
    ['shape', 'expected an object with a "servers" array'],
  ] as const)('refuses a %s answer that is not the API shape', async (malformed, problem) => {
    registry.control.malformed = malformed;
    const error = await client()
      .listServers()
      .catch((e) => e);
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toContain(problem);
  });

  it('sends X-API-Key and X-Tenant-ID only when set', async () => {
    await expect(new RegistryClient({ url: locked.url, retries: 0 }).listServers()).rejects.toThrow('Authentication failed: Invalid API key');
    expect(locked.control.requests.at(-1)).toMatchObject({ apiKey: undefined, tenant: undefined });
    await new RegistryClient({ url: locked.url, apiKey: 'sesame', tenantId: 'acme' }).listServers({ limit: 1 });
    expect(locked.control.requests.at(-1)).toMatchObject({ apiKey: 'sesame', tenant: 'acme' });
    await expect(new RegistryClient({ url: locked.url, apiKey: 'sesame', tenantId: 'banned', retries: 0 }).listServers()).rejects.toThrow(
      'Access denied: Tenant banned may not read this registry',
    );
  });
});

describe('client helpers', () => {
  it.each([
    ['5', 5000],
    ['0', 0],
    [null, undefined],
    ['soon', undefined],
    [new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), 10_000],
  ])('Retry-After %j is %j ms', (header, ms) => {
    expect(retryAfterMs(header, Date.UTC(2030, 0, 1))).toBe(ms);
  });

  it.each([
    ['{"title":"Bad","detail":"limit too big"}', 'limit too big'],
    ['{"message":"nope"}', 'nope'],
    ['{"error":{"message":"nested"}}', 'nested'],
    ['plain   text\nbody', 'plain text body'],
    ['', 'no details given'],
    // What a registry writes cannot forge lines or send escapes to the terminal that prints it.
    ['{"detail":"bad\\nError [OK]: fine"}', 'bad Error [OK]: fine'],
    ['{"message":"\\u001b[2Jcleared"}', '\\u001b[2Jcleared'],
    ['\u001b]0;title\u0007 body', '\\u001b]0;title\\u0007 body'],
  ])('error detail of %j', (body, detail) => {
    expect(errorDetail(body)).toBe(detail);
  });
});

describe('a registry that abuses the client', () => {
  let abusive: Registry;
  let other: Registry;
  beforeAll(async () => {
    abusive = await startRegistry({ apiKey: 'sesame' });
    other = await startRegistry();
  });
  afterAll(async () => {
    await abusive.close();
    await other.close();
  });
  const on = (options: Partial<ClientOptions> = {}) =>
    new RegistryClient({ url: abusive.url, apiKey: 'sesame', backoffMs: 1, sleep: async () => {}, ...options });
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (e: { code?: string }) => e.code,
    );

  it('stops reading a body over the limit, and a gzip bomb at its decompressed size', async () => {
    abusive.control.abuse = 'huge';
    abusive.control.abuseBytes = 50 * 1024 * 1024;
    expect(await codeOf(on({ maxResponseBytes: 1024 * 1024 }).listServers())).toBe('RESPONSE_TOO_LARGE');
    abusive.control.abuse = 'gzip-bomb';
    abusive.control.abuseBytes = 30 * 1024 * 1024; // about 30 KB on the wire
    expect(await codeOf(on({ maxResponseBytes: 1024 * 1024 }).listServers())).toBe('RESPONSE_TOO_LARGE');
    abusive.control.abuse = false;
  }, 30_000);

  it('an answer nested 20,000 levels deep is refused as not the API, never a stack overflow', async () => {
    abusive.control.abuse = 'deep';
    const error = await on()
      .listServers()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('nested deeper than') });
    abusive.control.abuse = false;
  });

  it('a body that never ends is a TIMEOUT after the retries, never INTERNAL', async () => {
    abusive.control.abuse = 'stall';
    const error = await on({ timeoutMs: 300, retries: 1 })
      .listServers()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TIMEOUT', details: { attempts: 2 } });
    abusive.control.abuse = false;
  });

  it('drops the API key on a redirect to another origin, and stops a redirect loop', async () => {
    abusive.control.abuse = other.url;
    other.control.requests.length = 0;
    await on().listServers({ limit: 1 });
    expect(other.control.requests).toHaveLength(1);
    expect(other.control.requests[0]!.apiKey).toBeUndefined();
    abusive.control.abuse = 'loop';
    const loop = await on()
      .listServers()
      .catch((e: unknown) => e);
    expect(loop).toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('redirects in a loop') });
    abusive.control.abuse = false;
  });
});
