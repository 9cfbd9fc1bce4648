import { type Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arangoTools } from '../../src/tools/arango/index.js';
import { cleanEnv, tempDir, runCommand } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { startArango } from '../support/arango-server.mjs';

/**
 * The arango tools through the real arangojs driver over real HTTP: against the ArangoDB test
 * server (test/support), or a real ArangoDB when ARANGO_URL is set (npm run test:arango-live;
 * fault injection is then skipped). Collection and graph names carry a per-run prefix.
 */
const LIVE = process.env.ARANGO_URL;
let fake: Awaited<ReturnType<typeof startArango>> | undefined;
let env: NodeJS.ProcessEnv;
let client: Client;
/** The backup folder (ARANGO_BACKUP_DIR): backups are written and restored there only. */
let backups: string;
const p = `t${Date.now().toString(36)}_`;
const users = `${p}users`;
const follows = `${p}follows`;
const graph = `${p}social`;

async function connect(extra: Record<string, string> = {}, args: string[] = []): Promise<Client> {
  return (await serveStdioInProcess({ argv: ['--exposure', 'direct', ...args], env: { ...env, ...extra }, name: 'arango-test' })).client;
}

async function call(name: string, args: Record<string, unknown>, on: Client = client): Promise<{ isError: boolean; body: any }> {
  const r = (await on.callTool({ name, arguments: args })) as CallToolResult;
  return { isError: r.isError === true, body: r.structuredContent };
}

async function ok(name: string, args: Record<string, unknown>): Promise<any> {
  const r = await call(name, args);
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.body)}`);
  return r.body;
}

const cli = async (args: string[], extra: NodeJS.ProcessEnv = {}) => {
  const r = await runCommand([...args, '--json'], { env: { ...env, ...extra } });
  return { code: r.code, body: JSON.parse(r.stdout || '{}') as any };
};

beforeAll(async () => {
  if (!LIVE) fake = await startArango();
  backups = tempDir('mcpkit-backups-');
  env = cleanEnv({ ARANGO_URL: LIVE ?? fake!.url, ARANGO_CONNECT_RETRIES: '2', ARANGO_CONNECT_DELAY_SEC: '0.2', ARANGO_BACKUP_DIR: backups });
  client = await connect();
});

afterAll(async () => {
  await client?.close();
  await fake?.close();
  if (LIVE) {
    // No tool drops collections or graphs; clean up the run's own with the driver.
    const { Database } = await import('arangojs');
    const db = new Database({
      url: LIVE,
      databaseName: process.env.ARANGO_DB ?? '_system',
      auth: { username: process.env.ARANGO_USERNAME ?? 'root', password: process.env.ARANGO_PASSWORD ?? '' },
    });
    for (const g of await db.listGraphs()) if (g.name.startsWith(p)) await db.graph(g.name).drop();
    for (const c of await db.listCollections()) if (c.name.startsWith(p)) await db.collection(c.name).drop();
    await db
      .collection('mcp_schemas')
      .remove(`${p}user`)
      .catch(() => undefined);
    db.close();
  }
});

describe('arango from the terminal', () => {
  it('creates, writes, queries and reports in tables or JSON', async () => {
    expect((await cli(['arango', 'status'])).body).toMatchObject({ connected: true, read_only: false });
    expect((await cli(['arango', 'create-collection', users])).body).toEqual({ name: users, type: 'document', created: true });
    expect((await cli(['arango', 'insert', users, '--document', '{"_key":"ada","name":"Ada","age":36}'])).body).toMatchObject({
      _key: 'ada',
      _id: `${users}/ada`,
    });
    const rows = await runCommand(['arango', 'query', `FOR u IN ${users} RETURN { name: u.name, age: u.age }`], { env });
    expect(rows.stdout.split('\n')[0]).toMatch(/^NAME\s+AGE$/);
    const nested = await runCommand(['arango', 'query', `FOR u IN ${users} RETURN { u }`], { env });
    expect(JSON.parse(nested.stdout)[0].u.name).toBe('Ada');
    expect((await cli(['arango', 'update', users, 'ada', '--update', '{"age":37}'])).body.new.age).toBe(37);
    const missing = await cli(['arango', 'query', `FOR x IN ${p}nope RETURN x`]);
    expect(missing.code).toBe(1);
    expect(missing.body.error).toMatchObject({ code: 'ARANGO_ERROR', details: { errorNum: 1203, http_code: 404 } });
    const bad = await cli(['arango', 'query', 'RETURN 1', '--max-rows', '0']);
    expect(bad.code).toBe(2);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect((await cli(['arango', 'remove', users, 'ada'])).body).toMatchObject({ removed: true, old: { name: 'Ada' } });
  });

  it('refuses writes in read-only mode', async () => {
    const refused = await cli(['arango', 'insert', users, '--document', '{}'], { ARANGO_READ_ONLY: 'true' });
    expect(refused.body.error.code).toBe('READ_ONLY');
    const query = await cli(['arango', 'query', `INSERT {} INTO ${users}`], { ARANGO_READ_ONLY: 'true' });
    expect(query.body.error).toMatchObject({ code: 'READ_ONLY', details: { keywords: ['INSERT'] } });
    expect((await cli(['arango', 'query', 'RETURN "INSERT"'], { ARANGO_READ_ONLY: 'true' })).body.rows).toEqual(['INSERT']);
  });
});

describe('arango over MCP', () => {
  it('lists every arango tool with annotations', async () => {
    const tools = (await client.listTools()).tools.filter((t) => t.name.startsWith('arango_'));
    expect(tools.map((t) => t.name).sort()).toEqual(arangoTools.map((t) => t.name).sort());
    for (const t of tools) expect(t.annotations?.readOnlyHint, t.name).toBeTypeOf('boolean');
  });

  it.each(arangoTools.map((t) => [t.name]))('%s refuses bad input with VALIDATION_ERROR', async (name) => {
    const r = await call(name, { not_an_argument: true });
    expect(r.isError).toBe(true);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('bulk-inserts in batches with per-item reports, updates, and queries with truncation', async () => {
    await call('arango_create_collection', { name: users });
    const documents = Array.from({ length: 2500 }, (_, i) => ({ _key: `u${i}`, n: i, group: i % 3 }));
    documents.push({ _key: 'u7', n: -1, group: 0 }); // a duplicate key
    const inserted = await ok('arango_bulk_insert', { collection: users, documents, batch_size: 1000, on_error: 'continue' });
    expect(inserted).toMatchObject({ total: 2501, succeeded: 2500, failed: 1, stopped: false, failures: [{ index: 2500, error: { errorNum: 1210 } }] });
    const stopped = await ok('arango_bulk_insert', {
      collection: users,
      documents: [{ _key: 'u1' }, { _key: 'x1' }, { _key: 'x2' }],
      batch_size: 1,
      on_error: 'stop',
    });
    expect(stopped).toMatchObject({ processed: 1, succeeded: 0, failed: 1, stopped: true });
    const updated = await ok('arango_bulk_update', {
      collection: users,
      updates: [
        { _key: 'u1', flag: true },
        { _key: 'missing', flag: true },
      ],
      on_error: 'ignore',
    });
    expect(updated).toMatchObject({ succeeded: 1, failed: 1, failures: [] });
    const page = await ok('arango_query', {
      query: 'FOR u IN @@c FILTER u.group == @g SORT u.n RETURN u.n',
      bind_vars: { '@c': users, g: 1 },
      max_rows: 10,
      batch_size: 4,
    });
    expect(page).toMatchObject({ rows: [1, 4, 7, 10, 13, 16, 19, 22, 25, 28], truncated: true, count: 833 });
    const built = await ok('arango_query_builder', { collection: users, filters: [{ field: 'flag', op: '==', value: true }], fields: ['n'] });
    expect(built.rows).toEqual([{ _key: 'u1', n: 1 }]);
    expect(built.bind_vars).toEqual({ '@collection': users, v0: true });
    const counted = await ok('arango_query_builder', { collection: users, filters: [{ field: 'group', op: '==', value: 0 }], count: true });
    expect(counted.rows).toEqual([834]);
  });

  it('manages indexes, explains with suggestions and profiles', async () => {
    const created = await ok('arango_create_index', { collection: users, fields: ['n'], unique: true, name: 'by_n' });
    expect(created).toMatchObject({ name: 'by_n', type: 'persistent', unique: true, created: true });
    expect((await ok('arango_create_index', { collection: users, fields: ['n'], unique: true, name: 'by_n' })).created).toBe(false);
    const ttl = await call('arango_create_index', { collection: users, type: 'ttl', fields: ['at'] });
    expect(ttl.body.error.code).toBe('VALIDATION_ERROR');
    const dup = await call('arango_insert', { collection: users, document: { n: 5 } });
    expect(dup.body.error).toMatchObject({ code: 'ARANGO_ERROR', details: { errorNum: 1210, http_code: 409 } });
    // A unique index over documents already there: refused where two share a value (many share a
    // group), made where none has the field and the index is sparse.
    const clash = await call('arango_create_index', { collection: users, fields: ['group'], unique: true, name: 'by_group' });
    expect(clash.body.error).toMatchObject({ code: 'ARANGO_ERROR', details: { errorNum: 1210, http_code: 409 } });
    const sparse = await ok('arango_create_index', { collection: users, fields: ['nowhere'], unique: true, sparse: true, name: 'by_nowhere' });
    expect(sparse).toMatchObject({ name: 'by_nowhere', unique: true, created: true });
    expect((await call('arango_delete_index', { collection: users, index: 'by_nowhere' })).body.error).toBeUndefined();
    const indexes = await ok('arango_list_indexes', { collection: users });
    expect(indexes.indexes.map((i: { type: string }) => i.type)).toEqual(['primary', 'persistent']);
    const explained = await ok('arango_explain_query', { query: 'FOR u IN @@c FILTER u.group == 2 RETURN u', bind_vars: { '@c': users } });
    expect(explained.index_suggestions).toMatchObject([{ collection: users, fields: ['group'], type: 'persistent' }]);
    const indexed = await ok('arango_explain_query', { query: `FOR u IN ${users} FILTER u.n == 2 RETURN u` });
    expect(indexed.index_suggestions).toEqual([]);
    expect(indexed.nodes.some((n: { type: string }) => n.type === 'IndexNode')).toBe(true);
    const profiled = await ok('arango_query_profile', { query: `FOR u IN ${users} FILTER u.n < 3 SORT u.n RETURN u.n` });
    expect(profiled.rows).toEqual([0, 1, 2]);
    expect(profiled.stats).toHaveProperty('executionTime');
    expect((await ok('arango_delete_index', { collection: users, index: 'by_n' })).deleted).toBe(true);
    const gone = await call('arango_delete_index', { collection: users, index: 'by_n' });
    expect(gone.body.error).toMatchObject({ code: 'ARANGO_ERROR', details: { errorNum: 1212 } });
  });

  it('checks references and JSON Schemas', async () => {
    await ok('arango_create_collection', { name: `${p}orders` });
    await ok('arango_insert', { collection: `${p}orders`, document: { _key: 'o1', customer: `${users}/u1`, items: [`${users}/u2`, `${users}/zz`] } });
    const refs = await ok('arango_validate_references', { collection: `${p}orders`, reference_fields: ['customer', 'items'] });
    expect(refs).toMatchObject({ valid: false, invalid_count: 1, invalid: [{ _key: 'o1', field: 'items', reference: `${users}/zz` }] });
    const refused = await call('arango_insert_with_validation', {
      collection: `${p}orders`,
      document: { customer: `${users}/nobody` },
      reference_fields: ['customer'],
    });
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { missing: [{ field: 'customer', reference: `${users}/nobody` }] } });
    expect(
      (await ok('arango_insert_with_validation', { collection: `${p}orders`, document: { customer: `${users}/u3` }, reference_fields: ['customer'] }))
        .references_checked,
    ).toBe(1);

    const schema = { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 0 } } };
    await ok('arango_create_schema', { name: `${p}user`, schema, collection: users });
    expect(await ok('arango_validate_document', { schema_name: `${p}user`, collection: users, key: 'u3' })).toEqual({ valid: true, errors: [] });
    const invalid = await ok('arango_validate_document', { schema_name: `${p}user`, document: { n: -1 } });
    expect(invalid).toMatchObject({ valid: false, errors: [{ path: '/n', message: 'must be >= 0' }] });
    const broken = await call('arango_create_schema', { name: `${p}broken`, schema: { type: 'no-such-type' } });
    expect(broken.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('builds, walks, checks, backs up and restores graphs', async () => {
    const created = await ok('arango_create_graph', { name: graph, edge_definitions: [{ collection: follows, from: [users], to: [users] }] });
    expect(created.edgeDefinitions).toEqual([{ collection: follows, from: [users], to: [users] }]);
    for (const [from, to] of [
      ['u1', 'u2'],
      ['u2', 'u3'],
      ['u3', 'u4'],
      ['u1', 'u5'],
    ])
      await ok('arango_add_edge', { graph, collection: follows, from: `${users}/${from}`, to: `${users}/${to}` });
    await ok('arango_add_vertex', { graph, collection: users, vertex: { _key: 'lonely', n: 9999 } });
    const walked = await ok('arango_traverse', { start: `${users}/u1`, graph, min_depth: 1, max_depth: 2 });
    expect(walked.results.map((r: { vertex: { _key: string } }) => r.vertex._key).sort()).toEqual(['u2', 'u3', 'u5']);
    const viaEdges = await ok('arango_traverse', { start: `${users}/u3`, edge_collections: [follows], direction: 'INBOUND', max_depth: 3, paths: true });
    expect(viaEdges.results.map((r: { path: { vertices: unknown[] } }) => r.path.vertices.length).sort()).toEqual([2, 3]);
    const path = await ok('arango_shortest_path', { start: `${users}/u1`, target: `${users}/u4`, graph });
    expect(path).toMatchObject({ found: true, length: 3 });
    expect(path.vertices.map((v: { _key: string }) => v._key)).toEqual(['u1', 'u2', 'u3', 'u4']);
    expect((await ok('arango_shortest_path', { start: `${users}/u4`, target: `${users}/u1`, graph })).found).toBe(false);
    const stats = await ok('arango_graph_statistics', { graph });
    expect(stats).toMatchObject({ edges: 4, busiest_vertex: { vertex: `${users}/u1`, out_degree: 2 } });
    expect((await ok('arango_list_graphs', {})).graphs.map((g: { name: string }) => g.name)).toContain(graph);
    await ok('arango_add_vertex_collection', { graph, collection: `${p}places` });
    const extended = await ok('arango_add_edge_definition', { graph, collection: `${p}visits`, from: [users], to: [`${p}places`] });
    expect(extended.edgeDefinitions.map((d: { collection: string }) => d.collection)).toEqual([follows, `${p}visits`]);

    expect((await ok('arango_validate_graph_integrity', { graph })).valid).toBe(true);
    await ok('arango_insert', { collection: follows, document: { _from: `${users}/u1`, _to: `${users}/ghost` } });
    const broken = await ok('arango_validate_graph_integrity', { graph });
    expect(broken).toMatchObject({ valid: false, graphs: [{ problems: [{ problem: `_to ${users}/ghost does not exist` }] }] });

    const dir = join(backups, 'graph-backup');
    const backup = await ok('arango_backup_graph', { graph, output_dir: 'graph-backup' });
    expect(backup.collections.find((c: { name: string }) => c.name === follows)).toMatchObject({ type: 'edge', documents: 5 });
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ format: 'mcpkit-arango-backup/1', graph: { name: graph } });
    const again = await call('arango_restore_graph', { input_dir: 'graph-backup' });
    expect(again.body.error).toMatchObject({ code: 'ARANGO_ERROR', details: { errorNum: 1925 } });
    const skipped = await ok('arango_restore_graph', { input_dir: dir, conflict: 'skip' });
    expect(skipped.collections.find((c: { collection: string }) => c.collection === follows)).toMatchObject({ inserted: 0, skipped: 5 });
    expect(skipped.integrity.valid).toBe(false);
    const all = await ok('arango_backup_named_graphs', { output_dir: join(backups, 'graphs') });
    expect(all.graphs.map((g: { graph: string }) => g.graph)).toContain(graph);
    expect(existsSync(join(all.folder, graph, 'manifest.json'))).toBe(true);
  });

  it('backs up collections to JSON files with a manifest', async () => {
    const dir = join(backups, 'users');
    const out = await ok('arango_backup', { collections: [users], output_dir: dir, doc_limit: 10 });
    expect(out.collections).toEqual([{ name: users, type: 'document', file: `${users}.json`, documents: 10, truncated: true }]);
    expect(JSON.parse(readFileSync(join(dir, `${users}.json`), 'utf8'))).toHaveLength(10);
    const unknown = await call('arango_backup', { collections: [`${p}nope`], output_dir: dir });
    expect(unknown.body.error.details.errorNum).toBe(1203);
  });

  it('writes and reads backups only inside the backup folder', async () => {
    const elsewhere = tempDir('mcpkit-elsewhere-');
    for (const [tool, args] of [
      ['arango_backup', { collections: [users], output_dir: join(elsewhere, 'b') }],
      ['arango_backup', { collections: [users], output_dir: '../escape' }],
      ['arango_backup_graph', { graph, output_dir: elsewhere }],
      ['arango_backup_named_graphs', { output_dir: '/tmp' }],
      ['arango_restore_graph', { input_dir: elsewhere }],
    ] as const) {
      const r = await call(tool, args);
      expect(r.body.error, tool).toMatchObject({ code: 'FORBIDDEN', details: { backup_dir: backups } });
    }
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(existsSync(join(backups, '..', 'escape'))).toBe(false);
    // A default folder lands inside it.
    const plain = await ok('arango_backup', { collections: [users], doc_limit: 1 });
    expect(plain.folder.startsWith(`${backups}/`)).toBe(true);
  });

  it('serve --read-only leaves out writing tools and refuses writing AQL', async () => {
    const readOnly = await connect({}, ['--read-only']);
    try {
      const names = (await readOnly.listTools()).tools.map((t) => t.name);
      expect(names).toContain('arango_query');
      expect(names).not.toContain('arango_insert');
      expect(names).not.toContain('arango_restore_graph');
      // Backups write files: writers, so read-only mode leaves them out too.
      for (const backup of ['arango_backup', 'arango_backup_graph', 'arango_backup_named_graphs']) expect(names).not.toContain(backup);
      const r = await call('arango_query', { query: `FOR u IN ${users} REMOVE u IN ${users}` }, readOnly);
      expect(r.body.error.code).toBe('READ_ONLY');
    } finally {
      await readOnly.close();
    }
  });
});

describe.skipIf(LIVE)('a database that is late, fails or goes away', () => {
  it('serve starts without a database, answers DATABASE_UNAVAILABLE, and uses it once it is up', async () => {
    const late = await startArango();
    const url = late.url;
    await late.stop();
    const c = await connect({ ARANGO_URL: url, ARANGO_CONNECT_RETRIES: '2', ARANGO_CONNECT_DELAY_SEC: '0.1' });
    try {
      const down = await call('arango_database_status', {}, c);
      expect(down.body.error).toMatchObject({ code: 'DATABASE_UNAVAILABLE', details: { urls: [url] } });
      expect(down.body.error.hint).toContain('docker compose up -d');
      await late.restart();
      expect((await call('arango_database_status', {}, c)).body).toMatchObject({ connected: true });
      await late.stop();
      expect((await call('arango_list_collections', {}, c)).body.error.code).toBe('DATABASE_UNAVAILABLE');
      await late.restart();
      expect((await call('arango_list_collections', {}, c)).isError).toBe(false);
    } finally {
      await c.close();
      await late.close();
    }
  });

  it('a 500 or a connection closed mid-call is a clean error, and the next call works', async () => {
    fake!.control.failNext({ status: 500, errorNum: 4, message: 'internal error: disk full' });
    const failed = await call('arango_query', { query: 'RETURN 1' });
    expect(failed.body.error).toMatchObject({ code: 'ARANGO_ERROR', message: 'internal error: disk full', details: { errorNum: 4, http_code: 500 } });
    fake!.control.dropNext = 1;
    const dropped = await call('arango_list_collections', {});
    expect(dropped.body.error.code).toBe('DATABASE_UNAVAILABLE');
    expect((await call('arango_query', { query: 'RETURN 2' })).body.rows).toEqual([2]);
  });

  it('a database that does not answer in time is reported, not waited on forever', async () => {
    const slow = await connect({ ARANGO_TIMEOUT_SEC: '0.3' });
    try {
      await call('arango_query', { query: 'RETURN 1' }, slow);
      fake!.control.delayMs = 1000;
      const r = await call('arango_query', { query: 'RETURN 1' }, slow);
      expect(r.body.error.code).toBe('DATABASE_UNAVAILABLE');
      expect(r.body.error.message).toContain('within 300 ms');
    } finally {
      fake!.control.delayMs = 0;
      await slow.close();
    }
  });
});
