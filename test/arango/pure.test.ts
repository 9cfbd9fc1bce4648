import { describe, expect, it } from 'vitest';
import { writingKeywords } from '../../src/arango/aql-safety.js';
import { collectionFile, defaultBackupFolder } from '../../src/arango/backup-layout.js';
import { suggestIndexes } from '../../src/arango/explain.js';
import { buildQuery, fieldPath } from '../../src/arango/query-builder.js';
import { resolveArangoSettings } from '../../src/arango/settings.js';

describe('resolveArangoSettings', () => {
  it.each([
    [
      'defaults',
      {},
      {},
      {
        urls: ['http://localhost:8529'],
        database: '_system',
        username: 'root',
        password: '',
        timeoutMs: 30000,
        connectRetries: 5,
        connectDelayMs: 2000,
        readOnly: false,
        configured: false,
      },
    ],
    [
      'config',
      { url: 'http://db:8529', database: 'app', username: 'u', password: 'p', timeout_ms: 500, connect_retries: 2, connect_delay_ms: 10, read_only: true },
      {},
      {
        urls: ['http://db:8529'],
        database: 'app',
        username: 'u',
        password: 'p',
        timeoutMs: 500,
        connectRetries: 2,
        connectDelayMs: 10,
        readOnly: true,
        configured: true,
      },
    ],
    [
      'environment over config',
      { url: 'http://db:8529', database: 'app' },
      {
        ARANGO_URL: 'http://env:1',
        ARANGO_DB: 'envdb',
        ARANGO_USER: 'eu',
        ARANGO_PASS: 'ep',
        ARANGO_TIMEOUT_SEC: '2.5',
        ARANGO_CONNECT_RETRIES: '7',
        ARANGO_CONNECT_DELAY_SEC: '0.5',
      },
      { urls: ['http://env:1'], database: 'envdb', username: 'eu', password: 'ep', timeoutMs: 2500, connectRetries: 7, connectDelayMs: 500 },
    ],
    [
      'ARANGO_USERNAME before ARANGO_USER',
      {},
      { ARANGO_USERNAME: 'a', ARANGO_USER: 'b', ARANGO_PASSWORD: 'x', ARANGO_PASS: 'y' },
      { username: 'a', password: 'x' },
    ],
    ['cluster coordinators from a list', { url: ['http://c1:8529', 'http://c2:8529'] }, {}, { urls: ['http://c1:8529', 'http://c2:8529'] }],
    [
      'cluster coordinators comma-separated',
      {},
      { ARANGO_URL: 'http://c1:8529, http://c2:8529' },
      { urls: ['http://c1:8529', 'http://c2:8529'], configured: true },
    ],
    ['read-only from the environment', {}, { ARANGO_READ_ONLY: 'true' }, { readOnly: true }],
    // fetch refuses a URL with credentials: they move into the connection's auth.
    ['credentials in the URL', { url: 'http://root:mcpkit@db:8529' }, {}, { urls: ['http://db:8529'], username: 'root', password: 'mcpkit' }],
    ['an encoded password in the URL', { url: 'https://app:p%40ss%3Aw@db:8529/' }, {}, { urls: ['https://db:8529/'], username: 'app', password: 'p@ss:w' }],
    ['a password only in the URL', { url: 'http://:secret@db:8529', username: 'u' }, {}, { urls: ['http://db:8529'], username: 'u', password: 'secret' }],
    [
      'the URL over the section, the environment over both',
      { url: 'http://a:b@db:8529', username: 'u', password: 'p' },
      { ARANGO_PASSWORD: 'env' },
      { username: 'a', password: 'env' },
    ],
    ['each coordinator stripped', {}, { ARANGO_URL: 'http://r:x@c1:8529,http://r:x@c2:8529' }, { urls: ['http://c1:8529', 'http://c2:8529'], password: 'x' }],
  ])('%s', (_label, section, env, expected) => {
    expect(resolveArangoSettings(section, env)).toMatchObject(expected);
  });

  it('refuses a timeout that is not a number', () => {
    expect(() => resolveArangoSettings({}, { ARANGO_TIMEOUT_SEC: 'soon' })).toThrow('ARANGO_TIMEOUT_SEC must be a non-negative number');
  });
});

describe('writingKeywords (read-only mode)', () => {
  it.each([
    ['FOR d IN users RETURN d', []],
    ['INSERT { a: 1 } INTO users', ['INSERT']],
    ['for d in users update d with { x: 1 } in users', ['UPDATE']],
    ['FOR d IN users REPLACE d WITH {} IN users', ['REPLACE']],
    ['FOR d IN users REMOVE d IN users', ['REMOVE']],
    ['UPSERT { k: 1 } INSERT { k: 1 } UPDATE {} IN c', ['UPSERT', 'INSERT', 'UPDATE']],
    ['RETURN "INSERT INTO users"', []],
    ["RETURN 'remove me'", []],
    ['FOR d IN users RETURN d.update', []],
    ['FOR d IN users FILTER d.remove == @insert RETURN d', []],
    ['// INSERT {} INTO users\nRETURN 1', []],
    ['/* UPDATE */ RETURN 1', []],
    ['FOR d IN `insert` RETURN d', []],
    ['LET x = (FOR u IN users REMOVE u IN users) RETURN x', ['REMOVE']],
    ['RETURN @ x', []], // a lone @: the server reports the syntax error, not a crash here
    ['@@ REMOVE x IN c', ['REMOVE']],
  ])('%j -> %j', (query, expected) => {
    expect(writingKeywords(query)).toEqual(expected);
  });
});

describe('buildQuery', () => {
  it.each([
    ['everything', { collection: 'users' }, 'FOR doc IN @@collection\n  RETURN doc', { '@collection': 'users' }],
    [
      'filters, sort, limit',
      {
        collection: 'users',
        filters: [
          { field: 'age', op: '>=' as const, value: 18 },
          { field: 'address.city', op: 'IN' as const, value: ['Oslo'] },
        ],
        sort: [{ field: 'name', direction: 'DESC' as const }],
        limit: 10,
        offset: 5,
      },
      'FOR doc IN @@collection\n  FILTER doc.`age` >= @v0\n  FILTER doc.`address`.`city` IN @v1\n  SORT doc.`name` DESC\n  LIMIT @offset, @limit\n  RETURN doc',
      { '@collection': 'users', v0: 18, v1: ['Oslo'], offset: 5, limit: 10 },
    ],
    [
      'fields',
      { collection: 'users', fields: ['name', 'a.b'] },
      'FOR doc IN @@collection\n  RETURN { `_key`: doc._key, `name`: doc.`name`, `a_b`: doc.`a`.`b` }',
      { '@collection': 'users' },
    ],
    [
      'count',
      { collection: 'users', filters: [{ field: 'x', op: 'LIKE' as const, value: 'a%' }], count: true },
      'FOR doc IN @@collection\n  FILTER doc.`x` LIKE @v0\n  COLLECT WITH COUNT INTO total\n  RETURN total',
      { '@collection': 'users', v0: 'a%' },
    ],
    [
      'a value that looks like AQL stays a value',
      { collection: 'users', filters: [{ field: 'name', op: '==' as const, value: '" || true || "' }] },
      'FOR doc IN @@collection\n  FILTER doc.`name` == @v0\n  RETURN doc',
      { '@collection': 'users', v0: '" || true || "' },
    ],
  ])('%s', (_label, input, query, bind) => {
    expect(buildQuery(input)).toEqual({ query, bind_vars: bind });
  });

  it.each([['name` || true'], ['a b'], ['1abc'], [''], ['a..b']])('refuses the field %j', (field) => {
    expect(() => fieldPath(field)).toThrow('is not an attribute path');
  });

  it('refuses IN without an array', () => {
    expect(() => buildQuery({ collection: 'c', filters: [{ field: 'a', op: 'IN', value: 1 }] })).toThrow('IN needs an array value');
  });
});

describe('backup layout', () => {
  it.each([
    ['users', 'users.json'],
    ['_system_thing', '_system_thing.json'],
    ['../etc/passwd', '___etc_passwd.json'],
  ])('collection %j -> %j', (name, file) => {
    expect(collectionFile(name)).toBe(file);
  });
  it('names a run folder by database and time', () => {
    expect(defaultBackupFolder('app', new Date('2026-11-22T06:30:00.123Z'))).toBe('app-2026-11-22T06-30-00-123Z');
  });
});

describe('suggestIndexes', () => {
  it.each([
    ['equality on a scanned collection', 'FOR u IN users FILTER u.email == @e RETURN u', {}, ['users'], [{ collection: 'users', fields: ['email'] }]],
    ['several attributes', 'FOR u IN users FILTER u.age > 3 FILTER u.city IN @c RETURN u', {}, ['users'], [{ collection: 'users', fields: ['age', 'city'] }]],
    ['a bound collection', 'FOR u IN @@coll FILTER u.a == 1 RETURN u', { '@coll': 'things' }, ['things'], [{ collection: 'things', fields: ['a'] }]],
    ['no suggestion when the plan used an index', 'FOR u IN users FILTER u.email == @e RETURN u', {}, [], []],
    ['no filter, no suggestion', 'FOR u IN users RETURN u', {}, ['users'], []],
  ])('%s', (_label, query, bind, scanned, expected) => {
    expect(suggestIndexes(query, bind, scanned).map(({ collection, fields }) => ({ collection, fields }))).toEqual(expected);
  });
});
