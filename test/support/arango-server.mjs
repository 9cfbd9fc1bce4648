// An ArangoDB HTTP API test server for the arango tools: the endpoints they use (version,
// database, collections, documents, indexes, cursor, explain, gharial graphs) as the public
// HTTP API documentation specifies them — status codes, `{ error, errorNum, errorMessage, code }`
// bodies, `_key`/`_id`/`_rev` — with AQL evaluated by aql.mjs. In memory; knobs make it fail.
// There is no ArangoDB on these machines; the same tests run against a real one when ARANGO_URL
// is set (npm run test:arango-live).
import { createServer } from 'node:http';
import { AqlError, execute, parse } from './aql.mjs';

const ERRORS = {
  unauthorized: [11, 401, 'not authorized to execute this request'],
  notFoundPath: [404, 404, 'unknown path'],
  badParameter: [10, 400, 'bad parameter'],
};

export class ArangoError extends Error {
  constructor(errorNum, message, code) {
    super(message);
    this.errorNum = errorNum;
    this.code = code;
  }
}

const fail = (errorNum, code, message) => {
  throw new ArangoError(errorNum, message, code);
};

/** A value as JSON keeps it: a number JSON cannot write (NaN, Infinity) and a missing one are null. */
const asStored = (v) => (v === undefined || (typeof v === 'number' && !Number.isFinite(v)) ? null : v);

/** Whether two field values are one for a unique index: as their JSON is (a missing field, NaN and Infinity are null). */
function sameValue(a, b) {
  const x = asStored(a);
  const y = asStored(b);
  if (x === y) return true;
  return typeof x === 'object' && typeof y === 'object' && x !== null && y !== null && JSON.stringify(x) === JSON.stringify(y);
}

/** One database's data, with the operations both the HTTP layer and the AQL evaluator use. */
class Store {
  constructor(name) {
    this.name = name;
    this.collections = new Map();
    this.graphs = new Map();
    this.tick = 1000;
  }
  rev() {
    return `_${(this.tick++).toString(36)}`;
  }
  has(name) {
    return this.collections.has(name);
  }
  coll(name) {
    return this.collections.get(name) ?? fail(1203, 404, `collection or view not found: ${name}`);
  }
  create(name, type = 2, options = {}) {
    if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_-]{0,255}$/.test(name)) fail(1208, 400, `illegal name: ${name}`);
    if (this.collections.has(name)) fail(1207, 409, `duplicate name: ${name}`);
    const c = {
      name,
      type,
      id: String(this.tick++),
      docs: new Map(),
      indexes: [{ id: `${name}/0`, type: 'primary', name: 'primary', fields: ['_key'], unique: true, sparse: false }],
      keyGen: 1,
      schema: options.schema ?? null,
      isSystem: name.startsWith('_'),
    };
    if (type === 3) c.indexes.push({ id: `${name}/1`, type: 'edge', name: 'edge', fields: ['_from', '_to'], unique: false, sparse: false });
    this.collections.set(name, c);
    return c;
  }
  all(name) {
    return [...this.coll(name).docs.values()].sort((a, b) => (a._key < b._key ? -1 : a._key > b._key ? 1 : 0));
  }
  count(name) {
    return this.coll(name).docs.size;
  }
  get(name, key) {
    return this.collections.get(name)?.docs.get(String(key)) ?? null;
  }
  checkUnique(c, doc, ignoreKey) {
    for (const index of c.indexes) {
      if (!index.unique || index.type === 'primary') continue;
      const values = index.fields.map((f) => doc[f]);
      if (index.sparse && values.some((v) => v === null || v === undefined)) continue;
      for (const other of c.docs.values()) {
        if (other._key !== ignoreKey && index.fields.every((f, i) => sameValue(other[f], values[i]))) {
          fail(
            1210,
            409,
            `unique constraint violated - in index ${index.name} of type ${index.type} over '${index.fields.join(', ')}'; conflicting key: ${other._key}`,
          );
        }
      }
    }
  }
  /**
   * A unique index made over documents already there: the first document (in order) that another
   * has the same values as fails, naming the first such other one. By the values' JSON, in one pass.
   */
  checkUniqueIndex(c, index) {
    const holders = new Map();
    const keyOf = (doc) => {
      const values = index.fields.map((f) => doc[f]);
      return index.sparse && values.some((v) => v === null || v === undefined) ? undefined : JSON.stringify(values.map((v) => v ?? null));
    };
    for (const doc of c.docs.values()) {
      const key = keyOf(doc);
      if (key === undefined) continue;
      const keys = holders.get(key) ?? [];
      keys.push(doc._key);
      holders.set(key, keys);
    }
    for (const doc of c.docs.values()) {
      const others = holders.get(keyOf(doc))?.filter((k) => k !== doc._key) ?? [];
      if (others.length)
        fail(
          1210,
          409,
          `unique constraint violated - in index ${index.name} of type ${index.type} over '${index.fields.join(', ')}'; conflicting key: ${others[0]}`,
        );
    }
  }
  insert(name, input, options = {}) {
    const c = this.coll(name);
    if (input === null || typeof input !== 'object' || Array.isArray(input)) fail(1227, 400, 'invalid document type');
    const key = input._key !== undefined ? String(input._key) : String(c.keyGen++);
    if (!/^[A-Za-z0-9_\-:.@()+,=;$!*'%]{1,254}$/.test(key)) fail(1221, 400, 'illegal document key');
    const existing = c.docs.get(key);
    if (existing && options.overwriteMode !== 'replace' && options.overwriteMode !== 'update')
      fail(1210, 409, `unique constraint violated - in index primary of type primary over '_key'; conflicting key: ${key}`);
    if (c.type === 3 && (typeof input._from !== 'string' || typeof input._to !== 'string' || !input._from.includes('/') || !input._to.includes('/')))
      fail(1233, 400, 'edge attribute missing or invalid');
    const doc = { ...(options.overwriteMode === 'update' && existing ? existing : {}), ...input, _key: key, _id: `${name}/${key}`, _rev: this.rev() };
    this.checkUnique(c, doc, key);
    c.docs.set(key, doc);
    return doc;
  }
  update(name, key, patch, options = {}) {
    const c = this.coll(name);
    const old = c.docs.get(String(key)) ?? fail(1202, 404, 'document not found');
    const merge = (a, b) => {
      const out = { ...a };
      for (const [k, v] of Object.entries(b)) {
        if (v === null && options.keepNull === false) delete out[k];
        else if (
          options.mergeObjects !== false &&
          v &&
          typeof v === 'object' &&
          !Array.isArray(v) &&
          out[k] &&
          typeof out[k] === 'object' &&
          !Array.isArray(out[k])
        )
          out[k] = merge(out[k], v);
        else out[k] = v;
      }
      return out;
    };
    const { _key, _id, _rev, ...rest } = patch ?? {};
    const doc = { ...merge(old, rest), _key: old._key, _id: old._id, _rev: this.rev() };
    this.checkUnique(c, doc, old._key);
    c.docs.set(old._key, doc);
    return { old, new: doc };
  }
  replace(name, key, input) {
    const c = this.coll(name);
    const old = c.docs.get(String(key)) ?? fail(1202, 404, 'document not found');
    const { _key, _id, _rev, ...rest } = input ?? {};
    const doc = { ...rest, _key: old._key, _id: old._id, _rev: this.rev() };
    this.checkUnique(c, doc, old._key);
    c.docs.set(old._key, doc);
    return { old, new: doc };
  }
  remove(name, key, ignoreMissing = false) {
    const c = this.coll(name);
    const old = c.docs.get(String(key));
    if (!old) return ignoreMissing ? null : fail(1202, 404, 'document not found');
    c.docs.delete(old._key);
    return old;
  }
  byId(id) {
    const s = typeof id === 'object' && id ? id._id : String(id);
    const [c, k] = s.split('/');
    return this.get(c, k);
  }
  graphEdgeCollections(graph) {
    const g = this.graphs.get(graph) ?? fail(1924, 404, `graph '${graph}' not found`);
    return g.edgeDefinitions.map((d) => d.collection);
  }
  neighbours(vertexId, direction, edgeCollections) {
    const out = [];
    for (const name of edgeCollections) {
      for (const e of this.all(name)) {
        if ((direction === 'OUTBOUND' || direction === 'ANY') && e._from === vertexId) out.push({ edge: e, next: e._to });
        else if ((direction === 'INBOUND' || direction === 'ANY') && e._to === vertexId) out.push({ edge: e, next: e._from });
      }
    }
    return out;
  }
  /** Depth-first paths from start, like AQL traversals with uniqueEdges: 'path' (the default). */
  traverse(start, direction, min, max, edgeCollections) {
    const first = this.byId(start);
    if (!first) return [];
    const paths = [];
    const walk = (path) => {
      const depth = path.edges.length;
      if (depth >= min) paths.push({ vertices: [...path.vertices], edges: [...path.edges] });
      if (depth >= max) return;
      for (const { edge, next } of this.neighbours(path.vertices.at(-1)._id, direction, edgeCollections)) {
        if (path.edges.some((e) => e._id === edge._id)) continue;
        const vertex = this.byId(next);
        if (!vertex) continue;
        walk({ vertices: [...path.vertices, vertex], edges: [...path.edges, edge] });
      }
    };
    walk({ vertices: [first], edges: [] });
    return paths;
  }
  shortestPath(start, target, direction, edgeCollections) {
    const from = this.byId(start),
      to = this.byId(target);
    if (!from || !to) return null;
    const previous = new Map([[from._id, null]]);
    const queue = [from._id];
    while (queue.length) {
      const id = queue.shift();
      if (id === to._id) break;
      for (const { edge, next } of this.neighbours(id, direction, edgeCollections)) {
        if (!previous.has(next)) {
          previous.set(next, { id, edge });
          queue.push(next);
        }
      }
    }
    if (!previous.has(to._id)) return null;
    const vertices = [],
      edges = [];
    for (let id = to._id; id;) {
      vertices.unshift(this.byId(id));
      const p = previous.get(id);
      if (!p) break;
      edges.unshift(p.edge);
      id = p.id;
    }
    return { vertices, edges };
  }
}

function collectionInfo(c) {
  return { id: c.id, name: c.name, status: 3, type: c.type, isSystem: c.isSystem, globallyUniqueId: `h${c.id}/${c.name}` };
}

/**
 * options: { databases?: string[] (default ['_system']), username?, password? (basic auth when set),
 *   closeConnections? (each answer ends its connection: a client in one process never reuses a socket the server is closing) }.
 * control: failNext({ status, errorNum?, message?, times? }), dropNext (close the socket mid-call),
 * delayMs, requests (log), stop() / restart() (the server going down and coming back).
 */
export async function startArango(options = {}) {
  const stores = new Map((options.databases ?? ['_system']).map((n) => [n, new Store(n)]));
  const cursors = new Map();
  let cursorId = 1;
  const control = { failures: [], dropNext: 0, delayMs: 0, requests: [] };
  control.failNext = (f) => control.failures.push({ times: 1, ...f });

  const send = (res, code, body) => {
    res.writeHead(code, {
      'content-type': 'application/json; charset=utf-8',
      server: 'ArangoDB',
      ...(options.closeConnections ? { connection: 'close' } : {}),
    });
    res.end(JSON.stringify(body));
  };
  const error = (res, code, errorNum, errorMessage) => send(res, code, { code, error: true, errorMessage, errorNum });

  const batch = (res, entry, code) => {
    const result = entry.rows.splice(0, entry.batchSize);
    const hasMore = entry.rows.length > 0;
    const body = {
      result,
      hasMore,
      ...(hasMore ? { id: entry.id } : {}),
      ...(entry.count !== undefined ? { count: entry.count } : {}),
      cached: false,
      extra: entry.extra,
      error: false,
      code,
    };
    if (!hasMore) cursors.delete(entry.id);
    send(res, code, body);
  };

  async function handle(req, res, body) {
    const url = new URL(req.url, 'http://x');
    let path = url.pathname;
    let dbName = '_system';
    const m = /^\/_db\/([^/]+)(\/.*)$/.exec(path);
    if (m) {
      dbName = decodeURIComponent(m[1]);
      path = m[2];
    }
    const q = url.searchParams;
    const method = req.method;
    if (options.username !== undefined) {
      const expected = `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return error(res, 401, ...ERRORS.unauthorized.slice(0, 1), ERRORS.unauthorized[2]);
    }
    if (path === '/_api/version' && method === 'GET') return send(res, 200, { server: 'arango', version: '3.12.4', license: 'community' });
    const db = stores.get(dbName);
    if (!db) return error(res, 404, 1228, 'database not found');
    if (path === '/_api/database/current' && method === 'GET')
      return send(res, 200, { error: false, code: 200, result: { name: db.name, id: '1', path: `/data/${db.name}`, isSystem: db.name === '_system' } });
    if (path === '/_api/collection' && method === 'GET') {
      const exclude = q.get('excludeSystem') === 'true';
      return send(res, 200, { error: false, code: 200, result: [...db.collections.values()].filter((c) => !(exclude && c.isSystem)).map(collectionInfo) });
    }
    if (path === '/_api/collection' && method === 'POST') {
      const c = db.create(body?.name, body?.type ?? 2, body ?? {});
      return send(res, 200, { error: false, code: 200, ...collectionInfo(c), waitForSync: false, keyOptions: { type: 'traditional', allowUserKeys: true } });
    }
    let parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] === '_api' && parts[1] === 'collection' && parts[2]) {
      const c = db.coll(parts[2]);
      const sub = parts[3];
      if (method === 'DELETE' && !sub) {
        db.collections.delete(c.name);
        return send(res, 200, { error: false, code: 200, id: c.id });
      }
      if (method === 'PUT' && sub === 'truncate') {
        c.docs.clear();
        return send(res, 200, { error: false, code: 200, ...collectionInfo(c) });
      }
      if (method === 'GET')
        return send(res, 200, {
          error: false,
          code: 200,
          ...collectionInfo(c),
          ...(sub === 'count' || sub === 'figures' ? { count: c.docs.size } : {}),
          ...(sub === 'properties' ? { waitForSync: false, schema: c.schema } : {}),
        });
    }
    if (parts[0] === '_api' && parts[1] === 'document' && parts[2]) {
      const coll = parts[2];
      const key = parts[3];
      const flag = (n) => q.get(n) === 'true';
      const decorate = (d, extra) => ({ _id: d._id, _key: d._key, _rev: d._rev, ...extra });
      const many = (items, fn) =>
        items.map((item) => {
          try {
            return fn(item);
          } catch (e) {
            if (!(e instanceof ArangoError)) throw e;
            return { error: true, errorNum: e.errorNum, errorMessage: e.message };
          }
        });
      db.coll(coll);
      if (method === 'POST' && !key) {
        const opts = { overwriteMode: q.get('overwriteMode') ?? (flag('overwrite') ? 'replace' : undefined) };
        if (Array.isArray(body))
          return send(
            res,
            202,
            many(body, (d) => {
              const doc = db.insert(coll, d, opts);
              return decorate(doc, flag('returnNew') ? { new: doc } : {});
            }),
          );
        const doc = db.insert(coll, body, opts);
        return send(res, 202, decorate(doc, flag('returnNew') ? { new: doc } : {}));
      }
      if (method === 'GET' && key) return send(res, 200, db.get(coll, key) ?? fail(1202, 404, 'document not found'));
      if ((method === 'PATCH' || method === 'PUT') && !key && Array.isArray(body)) {
        return send(
          res,
          202,
          many(body, (d) => {
            const r =
              method === 'PATCH'
                ? db.update(coll, d._key, d, { keepNull: q.get('keepNull') !== 'false', mergeObjects: q.get('mergeObjects') !== 'false' })
                : db.replace(coll, d._key, d);
            return decorate(r.new, { _oldRev: r.old._rev, ...(flag('returnNew') ? { new: r.new } : {}), ...(flag('returnOld') ? { old: r.old } : {}) });
          }),
        );
      }
      if ((method === 'PATCH' || method === 'PUT') && key) {
        const r =
          method === 'PATCH'
            ? db.update(coll, key, body, { keepNull: q.get('keepNull') !== 'false', mergeObjects: q.get('mergeObjects') !== 'false' })
            : db.replace(coll, key, body);
        return send(
          res,
          202,
          decorate(r.new, { _oldRev: r.old._rev, ...(flag('returnNew') ? { new: r.new } : {}), ...(flag('returnOld') ? { old: r.old } : {}) }),
        );
      }
      if (method === 'DELETE' && key) {
        const old = db.remove(coll, key);
        return send(res, 202, decorate(old, flag('returnOld') ? { old } : {}));
      }
    }
    if (path === '/_api/index' && method === 'GET') {
      const c = db.coll(q.get('collection') ?? '');
      return send(res, 200, { error: false, code: 200, indexes: c.indexes, identifiers: Object.fromEntries(c.indexes.map((i) => [i.id, i])) });
    }
    if (path === '/_api/index' && method === 'POST') {
      const c = db.coll(q.get('collection') ?? '');
      const type = body?.type;
      if (!['persistent', 'hash', 'skiplist', 'ttl', 'geo', 'fulltext', 'inverted', 'zkd', 'mdi'].includes(type))
        return error(res, 400, 10, `invalid index type '${type}'`);
      if (!Array.isArray(body.fields) || body.fields.length === 0) return error(res, 400, 10, "index definition is missing 'fields'");
      if (type === 'ttl' && typeof body.expireAfter !== 'number') return error(res, 400, 10, 'expireAfter attribute must be a number');
      const same = c.indexes.find(
        (i) =>
          i.type === (type === 'hash' || type === 'skiplist' ? 'persistent' : type) &&
          JSON.stringify(i.fields) === JSON.stringify(body.fields) &&
          !!i.unique === !!body.unique &&
          !!i.sparse === !!body.sparse,
      );
      if (same) return send(res, 200, { ...same, isNewlyCreated: false, error: false, code: 200 });
      const id = `${c.name}/${db.tick++}`;
      const index = {
        id,
        type: type === 'hash' || type === 'skiplist' ? 'persistent' : type,
        name: body.name ?? `idx_${id.split('/')[1]}`,
        fields: body.fields,
        unique: !!body.unique,
        sparse: !!body.sparse,
        ...(type === 'ttl' ? { expireAfter: body.expireAfter } : {}),
        ...(type === 'fulltext' ? { minLength: body.minLength ?? 2 } : {}),
      };
      if (c.indexes.some((i) => i.name === index.name)) return error(res, 409, 1207, `duplicate value: index name '${index.name}'`);
      if (index.unique) db.checkUniqueIndex(c, index);
      c.indexes.push(index);
      return send(res, 201, { ...index, isNewlyCreated: true, error: false, code: 201 });
    }
    if (parts[0] === '_api' && parts[1] === 'index' && parts[2] && parts[3] && method === 'DELETE') {
      const c = db.coll(parts[2]);
      const id = `${parts[2]}/${parts[3]}`;
      const at = c.indexes.findIndex((i) => i.id === id || i.name === parts[3]);
      if (at < 0) return error(res, 404, 1212, 'index not found');
      if (c.indexes[at].type === 'primary' || c.indexes[at].type === 'edge') return error(res, 403, 1212, 'cannot drop primary or edge index');
      c.indexes.splice(at, 1);
      return send(res, 200, { id, error: false, code: 200 });
    }
    if (path === '/_api/cursor' && method === 'POST') {
      if (typeof body?.query !== 'string') return error(res, 400, 10, 'query is empty');
      const started = performance.now();
      const out = execute(body.query, body.bindVars ?? {}, db);
      const entry = {
        id: String(cursorId++),
        rows: out.result,
        batchSize: Math.max(1, body.batchSize ?? 1000),
        count: body.count ? out.result.length : undefined,
        extra: { warnings: [], stats: { ...out.stats, fullCount: out.result.length, executionTime: (performance.now() - started) / 1000, peakMemoryUsage: 0 } },
      };
      cursors.set(entry.id, entry);
      return batch(res, entry, 201);
    }
    if (parts[0] === '_api' && parts[1] === 'cursor' && parts[2]) {
      const entry = cursors.get(parts[2]);
      if (method === 'DELETE') {
        if (!entry) return error(res, 404, 1600, 'cursor not found');
        cursors.delete(parts[2]);
        return send(res, 202, { id: parts[2], error: false, code: 202 });
      }
      if (!entry) return error(res, 404, 1600, 'cursor not found');
      return batch(res, entry, 200);
    }
    if (path === '/_api/explain' && method === 'POST')
      return send(res, 200, { ...explain(db, body?.query ?? '', body?.bindVars ?? {}), error: false, code: 200 });
    if (path === '/_api/query' && method === 'POST') {
      parse(body?.query ?? '');
      return send(res, 200, { error: false, code: 200, parsed: true, collections: [], bindVars: [], ast: [] });
    }
    if (parts[0] === '_api' && parts[1] === 'gharial') return gharial(db, method, parts.slice(2), body, q, res);
    return error(res, 404, 404, 'unknown path');
  }

  function gharial(db, method, parts, body, q, res) {
    const ok = (code, payload) => send(res, code, { error: false, code, ...payload });
    const info = (g) => ({
      _key: g.name,
      _id: `_graphs/${g.name}`,
      _rev: g.rev,
      name: g.name,
      edgeDefinitions: g.edgeDefinitions,
      orphanCollections: g.orphanCollections,
    });
    if (parts.length === 0 && method === 'GET') return ok(200, { graphs: [...db.graphs.values()].map(info) });
    if (parts.length === 0 && method === 'POST') {
      if (db.graphs.has(body.name)) return error(res, 409, 1925, 'graph already exists');
      const g = { name: body.name, edgeDefinitions: body.edgeDefinitions ?? [], orphanCollections: body.orphanCollections ?? [], rev: db.rev() };
      for (const d of g.edgeDefinitions) {
        if (!db.has(d.collection)) db.create(d.collection, 3);
        for (const v of [...d.from, ...d.to]) if (!db.has(v)) db.create(v, 2);
      }
      for (const v of g.orphanCollections) if (!db.has(v)) db.create(v, 2);
      db.graphs.set(g.name, g);
      return ok(202, { graph: info(g) });
    }
    const g = db.graphs.get(parts[0]);
    if (!g) return error(res, 404, 1924, 'graph not found');
    if (parts.length === 1 && method === 'GET') return ok(200, { graph: info(g) });
    if (parts.length === 1 && method === 'DELETE') {
      db.graphs.delete(g.name);
      return ok(202, { removed: true });
    }
    if (parts[1] === 'vertex' && parts.length === 2 && method === 'GET')
      return ok(200, { collections: [...new Set([...g.edgeDefinitions.flatMap((d) => [...d.from, ...d.to]), ...g.orphanCollections])].sort() });
    if (parts[1] === 'vertex' && parts.length === 2 && method === 'POST') {
      if (!db.has(body.collection)) db.create(body.collection, 2);
      if (!g.orphanCollections.includes(body.collection)) g.orphanCollections.push(body.collection);
      return ok(202, { graph: info(g) });
    }
    if (parts[1] === 'edge' && parts.length === 2 && method === 'GET') return ok(200, { collections: g.edgeDefinitions.map((d) => d.collection).sort() });
    if (parts[1] === 'edge' && parts.length === 2 && method === 'POST') {
      if (g.edgeDefinitions.some((d) => d.collection === body.collection)) return error(res, 400, 1920, 'multi use of edge collection in edge def');
      g.edgeDefinitions.push({ collection: body.collection, from: body.from, to: body.to });
      if (!db.has(body.collection)) db.create(body.collection, 3);
      for (const v of [...body.from, ...body.to]) if (!db.has(v)) db.create(v, 2);
      return ok(202, { graph: info(g) });
    }
    if ((parts[1] === 'vertex' || parts[1] === 'edge') && parts.length === 3 && method === 'POST') {
      const doc = db.insert(parts[2], body);
      return ok(202, { [parts[1]]: { _id: doc._id, _key: doc._key, _rev: doc._rev }, ...(q.get('returnNew') === 'true' ? { new: doc } : {}) });
    }
    if ((parts[1] === 'vertex' || parts[1] === 'edge') && parts.length === 4 && method === 'GET') {
      const doc = db.get(parts[2], parts[3]) ?? fail(1202, 404, 'document not found');
      return ok(200, { [parts[1]]: doc });
    }
    return error(res, 404, 404, 'unknown path');
  }

  let server;
  let port = options.port ?? 0;
  const listen = async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', async () => {
        control.requests.push({ method: req.method, path: req.url });
        if (control.delayMs) await new Promise((r) => setTimeout(r, control.delayMs));
        if (control.dropNext > 0) {
          control.dropNext--;
          req.socket.destroy();
          return;
        }
        const failure = control.failures[0];
        if (failure) {
          if (--failure.times <= 0) control.failures.shift();
          return error(res, failure.status, failure.errorNum ?? failure.status, failure.message ?? 'injected failure');
        }
        try {
          let body;
          try {
            body = raw ? JSON.parse(raw) : undefined;
          } catch {
            return error(res, 400, 600, 'VPackError error: Expecting digit');
          }
          await handle(req, res, body);
        } catch (e) {
          if (e instanceof ArangoError || e instanceof AqlError) return error(res, e.code, e.errorNum, e.message);
          error(res, 500, 4, `internal error: ${e.message}`);
        }
      });
    });
    await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
    port = server.address().port;
  };
  await listen();
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    control,
    store: (name = '_system') => stores.get(name),
    /** The server goes away (connections refused) until restart(). */
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
    restart: listen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** A plan in the shape of POST /_api/explain: nodes per statement, index use for equality filters. */
function explain(db, query, bindVars) {
  const ast = parse(query);
  const nodes = [{ type: 'SingletonNode', id: 1, dependencies: [], estimatedCost: 1, estimatedNrItems: 1 }];
  const collections = [];
  const usedIndexes = [];
  let id = 2;
  let cost = 1;
  const forVars = new Map();
  for (const st of ast.statements) {
    if (st.type === 'for' && (st.source.type === 'var' || st.source.type === 'collparam')) {
      const name = st.source.type === 'collparam' ? bindVars[`@${st.source.name}`] : st.source.name;
      if (db.has(name)) {
        forVars.set(st.vars[0], name);
        collections.push({ name, type: 'read' });
        const n = db.count(name);
        cost += n;
        nodes.push({
          type: 'EnumerateCollectionNode',
          id: id++,
          dependencies: [id - 2],
          collection: name,
          outVariable: { name: st.vars[0] },
          estimatedCost: cost,
          estimatedNrItems: n,
          random: false,
        });
        continue;
      }
    }
    if (
      st.type === 'filter' &&
      st.expr.type === 'cmp' &&
      st.expr.op === '==' &&
      st.expr.l.type === 'attr' &&
      st.expr.l.e.type === 'var' &&
      forVars.has(st.expr.l.e.name)
    ) {
      const coll = db.coll(forVars.get(st.expr.l.e.name));
      const index = coll.indexes.find((i) => i.fields[0] === st.expr.l.key && i.type !== 'edge');
      if (index) {
        const node = nodes.findLast((x) => x.type === 'EnumerateCollectionNode' && x.collection === coll.name);
        Object.assign(node, { type: 'IndexNode', indexes: [index] });
        usedIndexes.push(index);
      }
    }
    nodes.push({
      type:
        {
          filter: 'FilterNode',
          sort: 'SortNode',
          limit: 'LimitNode',
          let: 'CalculationNode',
          return: 'ReturnNode',
          collect: 'CollectNode',
          insert: 'InsertNode',
          update: 'UpdateNode',
          replace: 'ReplaceNode',
          remove: 'RemoveNode',
          traverse: 'TraversalNode',
          shortest: 'ShortestPathNode',
          for: 'EnumerateListNode',
        }[st.type] ?? 'CalculationNode',
      id: id++,
      dependencies: [id - 2],
      estimatedCost: ++cost,
      estimatedNrItems: 1,
    });
  }
  return {
    plan: {
      nodes,
      rules: usedIndexes.length ? ['use-indexes'] : [],
      collections,
      variables: [],
      estimatedCost: cost,
      estimatedNrItems: 1,
      isModificationQuery: ast.statements.some((s) => ['insert', 'update', 'replace', 'remove'].includes(s.type)),
    },
    warnings: [],
    stats: { rulesExecuted: 1, rulesSkipped: 0, plansCreated: 1 },
    cacheable: true,
  };
}
