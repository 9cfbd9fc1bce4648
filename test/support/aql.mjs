// A small AQL evaluator for the ArangoDB test server (arango-server.mjs): a tokenizer, a
// recursive-descent parser and a row-pipeline executor for the statements mcpkit's tools
// generate and users commonly type: FOR (collections, arrays, graph traversals), FILTER, SORT,
// LIMIT, LET, COLLECT (grouping, WITH COUNT INTO), RETURN [DISTINCT], INSERT, UPDATE, REPLACE,
// REMOVE, subqueries, bind parameters (@x, @@coll) and a set of functions. It is general: queries
// are evaluated, never matched against expected strings. Errors carry ArangoDB's errorNum.

export class AqlError extends Error {
  constructor(errorNum, message, code = 400) {
    super(message);
    this.errorNum = errorNum;
    this.code = code;
  }
}

const KEYWORDS = new Set([
  'FOR',
  'IN',
  'FILTER',
  'SORT',
  'LIMIT',
  'LET',
  'COLLECT',
  'RETURN',
  'DISTINCT',
  'INSERT',
  'UPDATE',
  'REPLACE',
  'REMOVE',
  'UPSERT',
  'WITH',
  'INTO',
  'OPTIONS',
  'ASC',
  'DESC',
  'AND',
  'OR',
  'NOT',
  'LIKE',
  'TRUE',
  'FALSE',
  'NULL',
  'OUTBOUND',
  'INBOUND',
  'ANY',
  'GRAPH',
  'SHORTEST_PATH',
  'TO',
  'COUNT',
  'AGGREGATE',
  'KEEP',
  'PRUNE',
  'SEARCH',
  'WINDOW',
]);

export function tokenize(text) {
  const tokens = [];
  let i = 0;
  const push = (type, value, pos) => tokens.push({ type, value, pos });
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      continue;
    }
    const start = i;
    if (c === '"' || c === "'") {
      let value = '';
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === '\\') {
          i++;
          const e = text[i];
          value += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e;
        } else value += text[i];
        i++;
      }
      if (i >= text.length) throw syntax(text, start, 'unterminated string');
      i++;
      push('string', value, start);
      continue;
    }
    if (c === '`' || c === '´') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) throw syntax(text, start, 'unterminated quoted name');
      push('name', text.slice(i + 1, end), start);
      i = end + 1;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? '') && text[i - 1] !== '.')) {
      const m = /^(\d+\.\d+|\d+|\.\d+)([eE][+-]?\d+)?/.exec(text.slice(i));
      push('number', Number(m[0]), start);
      i += m[0].length;
      continue;
    }
    if (c === '@') {
      const m = /^@@?[A-Za-z0-9_]+/.exec(text.slice(i));
      if (!m) throw syntax(text, start, 'bad bind parameter');
      push(m[0].startsWith('@@') ? 'collparam' : 'param', m[0].replace(/^@@?/, ''), start);
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text.slice(i));
      const word = m[0];
      i += word.length;
      if (KEYWORDS.has(word.toUpperCase())) push('kw', word.toUpperCase(), start);
      else push('name', word, start);
      continue;
    }
    const two = text.slice(i, i + 2);
    if (['==', '!=', '<=', '>=', '&&', '||', '..', '=~', '!~', '[*'].includes(two) && !(two === '[*' && text[i + 2] !== ']')) {
      if (two === '[*') {
        push('op', '[*]', start);
        i += 3;
        continue;
      }
      push('op', two, start);
      i += 2;
      continue;
    }
    if ('+-*/%<>=!?:.,()[]{}'.includes(c)) {
      push('op', c, start);
      i++;
      continue;
    }
    throw syntax(text, start, `unexpected character '${c}'`);
  }
  push('eof', null, text.length);
  return tokens;
}

function syntax(text, pos, what) {
  return new AqlError(1501, `AQL: syntax error, ${what} near '${text.slice(pos, pos + 20)}' at position ${pos}`);
}

export function parse(text) {
  const tokens = tokenize(text);
  let p = 0;
  const peek = (o = 0) => tokens[p + o];
  const fail = (what) => {
    throw syntax(text, peek().pos, what ?? `unexpected ${peek().type === 'eof' ? 'end of query' : `'${peek().value}'`}`);
  };
  const isKw = (k, o = 0) => peek(o).type === 'kw' && peek(o).value === k;
  const isOp = (v, o = 0) => peek(o).type === 'op' && peek(o).value === v;
  const kw = (k) => (isKw(k) ? (p++, true) : false);
  const op = (v) => (isOp(v) ? (p++, true) : false);
  const expectKw = (k) => {
    if (!kw(k)) fail(`expected ${k}`);
  };
  const expectOp = (v) => {
    if (!op(v)) fail(`expected '${v}'`);
  };
  const name = () => {
    const t = peek();
    if (t.type === 'name' || (t.type === 'kw' && ['COUNT', 'KEEP', 'TO', 'GRAPH', 'OPTIONS', 'AGGREGATE'].includes(t.value))) {
      p++;
      return t.type === 'kw' ? t.value.toLowerCase() : t.value;
    }
    return fail('expected a name');
  };
  const collection = () => {
    const t = peek();
    if (t.type === 'collparam') {
      p++;
      return { type: 'collparam', name: t.value };
    }
    if (t.type === 'name' || t.type === 'string') {
      p++;
      return { type: 'collname', name: t.value };
    }
    return fail('expected a collection');
  };

  const statementStart = () => ['FOR', 'FILTER', 'SORT', 'LIMIT', 'LET', 'COLLECT', 'RETURN', 'INSERT', 'UPDATE', 'REPLACE', 'REMOVE'].some((k) => isKw(k));

  function query(sub) {
    const statements = [];
    while (peek().type !== 'eof' && !(sub && isOp(')'))) {
      if (!statementStart()) fail();
      statements.push(statement());
    }
    return { type: 'query', statements };
  }

  function statement() {
    if (kw('FOR')) {
      const vars = [name()];
      while (op(',')) vars.push(name());
      expectKw('IN');
      const direction = ['OUTBOUND', 'INBOUND', 'ANY'];
      let min, max;
      const save = p;
      if (peek().type === 'number' || peek().type === 'param') {
        const first = primary();
        if (op('..')) {
          min = first;
          max = primary();
        } else if (direction.some((d) => isKw(d))) {
          min = first;
          max = first;
        } else p = save;
      }
      if (direction.some((d) => isKw(d))) {
        const dir = peek().value;
        p++;
        if (kw('SHORTEST_PATH')) {
          const start = expr();
          expectKw('TO');
          const target = expr();
          const via = graphVia();
          const options = kw('OPTIONS') ? expr() : undefined;
          return { type: 'shortest', vars, direction: dir, start, target, via, options };
        }
        const start = expr();
        const via = graphVia();
        const options = kw('OPTIONS') ? expr() : undefined;
        return {
          type: 'traverse',
          vars,
          direction: dir,
          min: min ?? { type: 'lit', value: 1 },
          max: max ?? min ?? { type: 'lit', value: 1 },
          start,
          via,
          options,
        };
      }
      p = save;
      const source = expr();
      if (kw('OPTIONS')) expr();
      return { type: 'for', vars, source };
    }
    if (kw('FILTER')) return { type: 'filter', expr: expr() };
    if (kw('LET')) {
      const n = name();
      expectOp('=');
      return { type: 'let', name: n, expr: expr() };
    }
    if (kw('SORT')) {
      const items = [];
      do {
        const e = expr();
        const dir = kw('DESC') ? -1 : (kw('ASC'), 1);
        items.push({ expr: e, dir });
      } while (op(','));
      return { type: 'sort', items };
    }
    if (kw('LIMIT')) {
      const a = expr();
      if (op(',')) return { type: 'limit', offset: a, count: expr() };
      return { type: 'limit', offset: { type: 'lit', value: 0 }, count: a };
    }
    if (kw('COLLECT')) {
      const groups = [];
      if (!isKw('WITH') && !isKw('INTO') && !isKw('AGGREGATE')) {
        do {
          const n = name();
          expectOp('=');
          groups.push({ name: n, expr: expr() });
        } while (op(','));
      }
      const aggregates = [];
      if (kw('AGGREGATE')) {
        do {
          const n = name();
          expectOp('=');
          aggregates.push({ name: n, expr: expr() });
        } while (op(','));
      }
      let into, countInto;
      if (kw('INTO')) into = name();
      if (kw('WITH')) {
        expectKw('COUNT');
        expectKw('INTO');
        countInto = name();
      }
      return { type: 'collect', groups, aggregates, into, countInto };
    }
    if (kw('RETURN')) {
      const distinct = kw('DISTINCT');
      return { type: 'return', distinct, expr: expr() };
    }
    if (kw('INSERT')) {
      const doc = expr();
      if (!kw('INTO')) expectKw('IN');
      const coll = collection();
      const options = kw('OPTIONS') ? expr() : undefined;
      return { type: 'insert', doc, coll, options };
    }
    for (const verb of ['UPDATE', 'REPLACE']) {
      if (kw(verb)) {
        const first = expr();
        let key = first,
          doc = first;
        if (kw('WITH')) doc = expr();
        else key = first;
        expectKw('IN');
        const coll = collection();
        const options = kw('OPTIONS') ? expr() : undefined;
        return { type: verb.toLowerCase(), key, doc, withClause: key !== doc, coll, options };
      }
    }
    if (kw('REMOVE')) {
      const key = expr();
      expectKw('IN');
      const coll = collection();
      const options = kw('OPTIONS') ? expr() : undefined;
      return { type: 'remove', key, coll, options };
    }
    return fail();
  }

  function graphVia() {
    if (kw('GRAPH')) return { graph: expr() };
    const edges = [collection()];
    while (op(',')) edges.push(collection());
    return { edges };
  }

  function expr() {
    const cond = or();
    if (op('?')) {
      const a = expr();
      expectOp(':');
      const b = expr();
      return { type: 'ternary', cond, a, b };
    }
    return cond;
  }
  function or() {
    let l = and();
    while (kw('OR') || op('||')) l = { type: 'or', l, r: and() };
    return l;
  }
  function and() {
    let l = not();
    while (kw('AND') || op('&&')) l = { type: 'and', l, r: not() };
    return l;
  }
  function not() {
    if (kw('NOT') || op('!')) return { type: 'not', e: not() };
    return comparison();
  }
  function comparison() {
    const l = range();
    for (const o of ['==', '!=', '<=', '>=', '<', '>', '=~', '!~']) if (op(o)) return { type: 'cmp', op: o, l, r: range() };
    if (kw('IN')) return { type: 'in', l, r: range(), neg: false };
    if (isKw('NOT') && isKw('IN', 1)) {
      p += 2;
      return { type: 'in', l, r: range(), neg: true };
    }
    if (kw('LIKE')) return { type: 'like', l, r: range() };
    return l;
  }
  function range() {
    const l = additive();
    if (op('..')) return { type: 'range', l, r: additive() };
    return l;
  }
  function additive() {
    let l = mult();
    for (;;) {
      if (op('+')) l = { type: 'arith', op: '+', l, r: mult() };
      else if (op('-')) l = { type: 'arith', op: '-', l, r: mult() };
      else return l;
    }
  }
  function mult() {
    let l = unary();
    for (;;) {
      const o = ['*', '/', '%'].find((x) => isOp(x));
      if (!o) return l;
      p++;
      l = { type: 'arith', op: o, l, r: unary() };
    }
  }
  function unary() {
    if (op('-')) return { type: 'neg', e: unary() };
    if (op('+')) return unary();
    return postfix();
  }
  function postfix() {
    let e = primary();
    for (;;) {
      if (op('.')) {
        const t = peek();
        if (t.type === 'name' || t.type === 'kw' || t.type === 'string') {
          p++;
          e = { type: 'attr', e, key: t.value };
        } else fail('expected an attribute');
      } else if (op('[*]')) e = { type: 'expand', e };
      else if (op('[')) {
        const index = expr();
        expectOp(']');
        e = { type: 'index', e, index };
      } else return e;
    }
  }
  function primary() {
    const t = peek();
    if (t.type === 'number') {
      p++;
      return { type: 'lit', value: t.value };
    }
    if (t.type === 'string') {
      p++;
      return { type: 'lit', value: t.value };
    }
    if (t.type === 'param') {
      p++;
      return { type: 'param', name: t.value };
    }
    if (t.type === 'collparam') {
      p++;
      return { type: 'collparam', name: t.value };
    }
    if (kw('TRUE')) return { type: 'lit', value: true };
    if (kw('FALSE')) return { type: 'lit', value: false };
    if (kw('NULL')) return { type: 'lit', value: null };
    if (op('(')) {
      if (statementStart()) {
        const q = query(true);
        expectOp(')');
        return { type: 'subquery', q };
      }
      const e = expr();
      expectOp(')');
      return e;
    }
    if (op('[')) {
      const items = [];
      if (!isOp(']'))
        do {
          items.push(expr());
        } while (op(','));
      expectOp(']');
      return { type: 'array', items };
    }
    if (op('{')) {
      const entries = [];
      if (!isOp('}'))
        do {
          const k = peek();
          let key;
          if (op('[')) {
            key = expr();
            expectOp(']');
          } else if (k.type === 'name' || k.type === 'string' || k.type === 'kw') {
            p++;
            key = { type: 'lit', value: k.value };
            if (!isOp(':') && k.type === 'name') {
              entries.push({ key, value: { type: 'var', name: k.value } });
              continue;
            }
          } else fail('expected an attribute name');
          expectOp(':');
          entries.push({ key, value: expr() });
        } while (op(','));
      expectOp('}');
      return { type: 'object', entries };
    }
    if (t.type === 'name' || (t.type === 'kw' && ['COUNT', 'KEEP', 'LIKE'].includes(t.value))) {
      p++;
      const n = t.type === 'kw' ? t.value : t.value;
      if (op('(')) {
        const args = [];
        if (statementStart()) args.push({ type: 'subquery', q: query(true) }); // LENGTH(FOR ...)
        else if (!isOp(')'))
          do {
            args.push(expr());
          } while (op(','));
        expectOp(')');
        return { type: 'call', name: n.toUpperCase(), args };
      }
      return { type: 'var', name: n };
    }
    return fail();
  }

  const q = query(false);
  return q;
}

// ---- values -------------------------------------------------------------------------------

const typeRank = (v) =>
  v === null || v === undefined ? 0 : typeof v === 'boolean' ? 1 : typeof v === 'number' ? 2 : typeof v === 'string' ? 3 : Array.isArray(v) ? 4 : 5;

export function compare(a, b) {
  const ra = typeRank(a),
    rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  if (ra <= 3) return a < b ? -1 : a > b ? 1 : 0;
  if (ra === 4) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const c = compare(a[i] ?? null, b[i] ?? null);
      if (c) return c;
    }
    return 0;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const k of keys) {
    const c = compare(a[k] ?? null, b[k] ?? null);
    if (c) return c;
  }
  return 0;
}

const truthy = (v) => !(v === null || v === undefined || v === false || v === 0 || v === '');
const num = (v) =>
  typeof v === 'number'
    ? v
    : typeof v === 'boolean'
      ? Number(v)
      : typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))
        ? Number(v)
        : v === null || v === undefined
          ? 0
          : Array.isArray(v) && v.length === 0
            ? 0
            : Array.isArray(v) && v.length === 1
              ? num(v[0])
              : 0;
const str = (v) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));
const likeRegex = (pattern, ci) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\*?]/g, (c) => (c === '%' ? '.*' : c === '_' ? '.' : `\\${c}`))
      .replace(/\\%/g, '.*')
      .replace(/%/g, '.*')
      .replace(/_/g, '.')}$`,
    ci ? 'si' : 's',
  );

const FUNCTIONS = {
  LENGTH: (v) =>
    Array.isArray(v) ? v.length : v && typeof v === 'object' ? Object.keys(v).length : typeof v === 'string' ? [...v].length : v === null ? 0 : str(v).length,
  COUNT: (v) => FUNCTIONS.LENGTH(v),
  CONCAT: (...a) => a.map((x) => (Array.isArray(x) ? x.map(str).join('') : str(x))).join(''),
  CONCAT_SEPARATOR: (sep, ...a) =>
    a
      .flat()
      .filter((x) => x !== null)
      .map(str)
      .join(str(sep)),
  UPPER: (s) => str(s).toUpperCase(),
  LOWER: (s) => str(s).toLowerCase(),
  TRIM: (s) => str(s).trim(),
  SUBSTRING: (s, o, l) => (l === undefined ? str(s).slice(num(o)) : str(s).substr(num(o), num(l))),
  SPLIT: (s, sep) => str(s).split(str(sep)),
  CONTAINS: (s, search, returnIndex) => (returnIndex ? str(s).indexOf(str(search)) : str(s).includes(str(search))),
  LIKE: (s, pattern, ci) => likeRegex(str(pattern), ci).test(str(s)),
  REGEX_TEST: (s, re, ci) => new RegExp(str(re), ci ? 'i' : '').test(str(s)),
  TO_STRING: (v) => str(v),
  TO_NUMBER: (v) => num(v),
  TO_BOOL: (v) => truthy(v),
  TO_ARRAY: (v) => (Array.isArray(v) ? v : v === null ? [] : typeof v === 'object' ? Object.values(v) : [v]),
  IS_NULL: (v) => v === null || v === undefined,
  IS_STRING: (v) => typeof v === 'string',
  IS_NUMBER: (v) => typeof v === 'number',
  IS_BOOL: (v) => typeof v === 'boolean',
  IS_ARRAY: (v) => Array.isArray(v),
  IS_OBJECT: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
  TYPENAME: (v) => ['null', 'bool', 'number', 'string', 'array', 'object'][typeRank(v)],
  HAS: (o, k) => o !== null && typeof o === 'object' && Object.hasOwn(o, str(k)),
  ATTRIBUTES: (o) => (o && typeof o === 'object' ? Object.keys(o) : null),
  VALUES: (o) => (o && typeof o === 'object' ? Object.values(o) : null),
  MERGE: (...objs) => Object.assign({}, ...objs.flat().filter((o) => o && typeof o === 'object')),
  KEEP: (o, ...keys) => Object.fromEntries(Object.entries(o ?? {}).filter(([k]) => keys.flat().includes(k))),
  UNSET: (o, ...keys) => Object.fromEntries(Object.entries(o ?? {}).filter(([k]) => !keys.flat().includes(k))),
  FIRST: (a) => (Array.isArray(a) && a.length ? a[0] : null),
  LAST: (a) => (Array.isArray(a) && a.length ? a[a.length - 1] : null),
  NTH: (a, i) => (Array.isArray(a) ? (a[num(i)] ?? null) : null),
  SUM: (a) => (a ?? []).reduce((s, x) => s + num(x), 0),
  MIN: (a) => (a ?? []).filter((x) => x !== null).reduce((m, x) => (m === null || compare(x, m) < 0 ? x : m), null),
  MAX: (a) => (a ?? []).filter((x) => x !== null).reduce((m, x) => (m === null || compare(x, m) > 0 ? x : m), null),
  AVERAGE: (a) => {
    const xs = (a ?? []).filter((x) => x !== null);
    return xs.length ? xs.reduce((s, x) => s + num(x), 0) / xs.length : null;
  },
  AVG: (a) => FUNCTIONS.AVERAGE(a),
  UNIQUE: (a) => (a ?? []).filter((x, i, all) => all.findIndex((y) => compare(x, y) === 0) === i),
  FLATTEN: (a, depth = 1) => (a ?? []).flat(num(depth)),
  APPEND: (a, b, unique) => {
    const out = [...(a ?? []), ...(Array.isArray(b) ? b : [b])];
    return unique ? FUNCTIONS.UNIQUE(out) : out;
  },
  PUSH: (a, v, unique) => (unique && (a ?? []).some((x) => compare(x, v) === 0) ? a : [...(a ?? []), v]),
  SLICE: (a, start, length) => (a ?? []).slice(num(start), length === undefined ? undefined : num(start) + num(length)),
  REVERSE: (a) => (Array.isArray(a) ? [...a].reverse() : [...str(a)].reverse().join('')),
  SORTED: (a) => [...(a ?? [])].sort(compare),
  ROUND: (v) => Math.round(num(v)),
  FLOOR: (v) => Math.floor(num(v)),
  CEIL: (v) => Math.ceil(num(v)),
  ABS: (v) => Math.abs(num(v)),
  SQRT: (v) => Math.sqrt(num(v)),
  RAND: () => Math.random(),
  DATE_NOW: () => Date.now(),
  DATE_ISO8601: (v) => new Date(typeof v === 'number' ? v : str(v)).toISOString(),
  NOT_NULL: (...a) => a.find((x) => x !== null && x !== undefined) ?? null,
  PARSE_IDENTIFIER: (id) => {
    const s = typeof id === 'object' && id ? id._id : str(id);
    const [collection, key] = s.split('/');
    return { collection, key };
  },
  ZIP: (keys, values) => Object.fromEntries((keys ?? []).map((k, i) => [str(k), (values ?? [])[i] ?? null])),
};

/** Evaluates a parsed query. `db` provides collection access (see arango-server.mjs). */
export function execute(text, bindVars = {}, db) {
  const ast = parse(text);
  const declared = new Set();
  const usedParams = (node) => {
    if (!node || typeof node !== 'object') return;
    if (node.type === 'param' || node.type === 'collparam') declared.add(node.type === 'collparam' ? `@${node.name}` : node.name);
    for (const v of Object.values(node)) {
      if (!v || typeof v !== 'object') continue;
      if (Array.isArray(v)) v.forEach(usedParams);
      else usedParams(v);
    }
  };
  usedParams(ast);
  for (const p of declared) if (!Object.hasOwn(bindVars, p)) throw new AqlError(1551, `no value specified for declared bind parameter '${p}'`);
  for (const p of Object.keys(bindVars)) if (!declared.has(p)) throw new AqlError(1552, `bind parameter '${p}' was not declared in the query`);
  const stats = { writesExecuted: 0, writesIgnored: 0, scannedFull: 0, scannedIndex: 0, filtered: 0 };
  const writes = new Set();
  const reads = new Set();

  const collName = (node) => {
    if (node.type === 'collparam') {
      const v = bindVars[`@${node.name}`];
      if (typeof v !== 'string') throw new AqlError(1553, `bind parameter '@${node.name}' has an invalid value or type`);
      return v;
    }
    return node.name;
  };

  const evaluate = (node, scope) => {
    switch (node.type) {
      case 'lit':
        return node.value;
      case 'param':
        return bindVars[node.name];
      case 'collparam':
        return db.all(collName(node));
      case 'var': {
        if (Object.hasOwn(scope, node.name)) return scope[node.name];
        if (db.has(node.name)) {
          reads.add(node.name);
          return db.all(node.name);
        }
        throw new AqlError(1203, `collection or view not found: ${node.name}`, 404);
      }
      case 'attr': {
        const o = evaluate(node.e, scope);
        if (Array.isArray(o) && node.e.type === 'expand') return o.map((x) => (x && typeof x === 'object' ? (x[node.key] ?? null) : null));
        return o !== null && typeof o === 'object' && !Array.isArray(o) ? (o[node.key] ?? null) : null;
      }
      case 'expand': {
        const o = evaluate(node.e, scope);
        return Array.isArray(o) ? o : [];
      }
      case 'index': {
        const o = evaluate(node.e, scope);
        const i = evaluate(node.index, scope);
        if (Array.isArray(o)) {
          const n = num(i);
          return o[n < 0 ? o.length + n : n] ?? null;
        }
        return o && typeof o === 'object' ? (o[str(i)] ?? null) : null;
      }
      case 'array':
        return node.items.map((i) => evaluate(i, scope));
      case 'object':
        return Object.fromEntries(node.entries.map((e) => [str(evaluate(e.key, scope)), evaluate(e.value, scope)]));
      case 'ternary':
        return truthy(evaluate(node.cond, scope)) ? evaluate(node.a, scope) : evaluate(node.b, scope);
      case 'or': {
        const l = evaluate(node.l, scope);
        return truthy(l) ? l : evaluate(node.r, scope);
      }
      case 'and': {
        const l = evaluate(node.l, scope);
        return truthy(l) ? evaluate(node.r, scope) : l;
      }
      case 'not':
        return !truthy(evaluate(node.e, scope));
      case 'neg':
        return -num(evaluate(node.e, scope));
      case 'cmp': {
        const l = evaluate(node.l, scope),
          r = evaluate(node.r, scope);
        if (node.op === '=~' || node.op === '!~') return new RegExp(str(r)).test(str(l)) === (node.op === '=~');
        const c = compare(l, r);
        return { '==': c === 0, '!=': c !== 0, '<': c < 0, '<=': c <= 0, '>': c > 0, '>=': c >= 0 }[node.op];
      }
      case 'in': {
        const r = evaluate(node.r, scope);
        const l = evaluate(node.l, scope);
        const found = Array.isArray(r) && r.some((x) => compare(x, l) === 0);
        return node.neg ? !found : found;
      }
      case 'like':
        return likeRegex(str(evaluate(node.r, scope)), false).test(str(evaluate(node.l, scope)));
      case 'range': {
        const a = num(evaluate(node.l, scope)),
          b = num(evaluate(node.r, scope));
        const out = [];
        for (let i = a; a <= b ? i <= b : i >= b; a <= b ? i++ : i--) out.push(i);
        return out;
      }
      case 'arith': {
        const l = num(evaluate(node.l, scope)),
          r = num(evaluate(node.r, scope));
        const v =
          node.op === '+' ? l + r : node.op === '-' ? l - r : node.op === '*' ? l * r : node.op === '/' ? (r === 0 ? null : l / r) : r === 0 ? null : l % r;
        return v === null || Number.isFinite(v) ? v : null;
      }
      case 'call': {
        if (node.name === 'DOCUMENT') {
          const args = node.args.map((a) => evaluate(a, scope));
          const lookup = (coll, key) => db.get(coll, key) ?? null;
          const one = (id) => {
            const s = typeof id === 'object' && id ? id._id : str(id);
            const [c, k] = s.split('/');
            return k === undefined ? null : lookup(c, k);
          };
          if (args.length === 2)
            return Array.isArray(args[1])
              ? args[1].map((k) => lookup(str(args[0]), str(k).split('/').pop()))
              : lookup(str(args[0]), str(args[1]).split('/').pop());
          return Array.isArray(args[0]) ? args[0].map(one) : one(args[0]);
        }
        const fn = FUNCTIONS[node.name];
        if (!fn) throw new AqlError(1540, `usage of unknown function '${node.name}()'`);
        return fn(...node.args.map((a) => evaluate(a, scope)));
      }
      case 'subquery':
        return run(node.q, [scope]);
      default:
        throw new AqlError(1500, `cannot evaluate ${node.type}`);
    }
  };

  const asArray = (v) => (Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]);
  const keyOf = (v) => (v && typeof v === 'object' ? v._key : str(v).split('/').pop());

  const run = (q, rows) => {
    let returned;
    for (const st of q.statements) {
      switch (st.type) {
        case 'for': {
          const next = [];
          for (const row of rows) {
            const source =
              st.source.type === 'var' && !Object.hasOwn(row, st.source.name)
                ? db.has(st.source.name)
                  ? (reads.add(st.source.name), (stats.scannedFull += db.count(st.source.name)), db.all(st.source.name))
                  : evaluate(st.source, row)
                : evaluate(st.source, row);
            for (const item of asArray(source)) next.push({ ...row, [st.vars[0]]: item });
          }
          rows = next;
          break;
        }
        case 'traverse': {
          const next = [];
          for (const row of rows) {
            const min = num(evaluate(st.min, row)),
              max = num(evaluate(st.max, row));
            const start = evaluate(st.start, row);
            const edges = st.via.graph !== undefined ? db.graphEdgeCollections(str(evaluate(st.via.graph, row))) : st.via.edges.map(collName);
            for (const path of db.traverse(start, st.direction, min, max, edges, st.options ? evaluate(st.options, row) : {})) {
              const v = path.vertices.at(-1),
                e = path.edges.at(-1) ?? null;
              next.push({ ...row, [st.vars[0]]: v, ...(st.vars[1] ? { [st.vars[1]]: e } : {}), ...(st.vars[2] ? { [st.vars[2]]: path } : {}) });
            }
          }
          rows = next;
          break;
        }
        case 'shortest': {
          const next = [];
          for (const row of rows) {
            const edges = st.via.graph !== undefined ? db.graphEdgeCollections(str(evaluate(st.via.graph, row))) : st.via.edges.map(collName);
            const path = db.shortestPath(evaluate(st.start, row), evaluate(st.target, row), st.direction, edges);
            if (path)
              path.vertices.forEach((v, i) =>
                next.push({ ...row, [st.vars[0]]: v, ...(st.vars[1] ? { [st.vars[1]]: i === 0 ? null : path.edges[i - 1] } : {}) }),
              );
          }
          rows = next;
          break;
        }
        case 'filter': {
          const before = rows.length;
          rows = rows.filter((row) => truthy(evaluate(st.expr, row)));
          stats.filtered += before - rows.length;
          break;
        }
        case 'let':
          rows = rows.map((row) => ({ ...row, [st.name]: evaluate(st.expr, row) }));
          break;
        case 'sort': {
          const keyed = rows.map((row) => ({ row, keys: st.items.map((i) => evaluate(i.expr, row)) }));
          keyed.sort((a, b) => {
            for (let i = 0; i < st.items.length; i++) {
              const c = compare(a.keys[i], b.keys[i]);
              if (c) return c * st.items[i].dir;
            }
            return 0;
          });
          rows = keyed.map((k) => k.row);
          break;
        }
        case 'limit': {
          const offset = num(evaluate(st.offset, {})),
            count = num(evaluate(st.count, {}));
          rows = rows.slice(offset, offset + count);
          break;
        }
        case 'collect': {
          const groups = new Map();
          for (const row of rows) {
            const values = st.groups.map((g) => evaluate(g.expr, row));
            const key = JSON.stringify(values);
            if (!groups.has(key)) groups.set(key, { values, rows: [] });
            groups.get(key).rows.push(row);
          }
          if (st.groups.length === 0 && !groups.size) groups.set('[]', { values: [], rows: [] });
          const out = [...groups.values()]
            .sort((a, b) => compare(a.values, b.values))
            .map((g) => {
              const row = Object.fromEntries(st.groups.map((gr, i) => [gr.name, g.values[i]]));
              for (const a of st.aggregates) {
                const inner = a.expr.type === 'call' ? a.expr : null;
                const fn = inner && FUNCTIONS[inner.name];
                row[a.name] = fn ? fn(g.rows.map((r) => evaluate(inner.args[0], r))) : null;
              }
              if (st.into) row[st.into] = g.rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith('__'))));
              if (st.countInto) row[st.countInto] = g.rows.length;
              return row;
            });
          rows = out;
          break;
        }
        case 'return': {
          let values = rows.map((row) => evaluate(st.expr, row));
          if (st.distinct) values = FUNCTIONS.UNIQUE(values);
          returned = values;
          rows = [];
          break;
        }
        case 'insert':
        case 'update':
        case 'replace':
        case 'remove': {
          const coll = collName(st.coll);
          if (!db.has(coll)) throw new AqlError(1203, `collection or view not found: ${coll}`, 404);
          writes.add(coll);
          const options = st.options ? evaluate(st.options, {}) : {};
          rows = rows.map((row) => {
            if (st.type === 'insert') {
              const NEW = db.insert(coll, evaluate(st.doc, row));
              stats.writesExecuted++;
              return { ...row, NEW, OLD: null };
            }
            const key = keyOf(evaluate(st.key, row));
            if (st.type === 'remove') {
              const OLD = db.remove(coll, key, options.ignoreErrors);
              if (OLD) stats.writesExecuted++;
              else stats.writesIgnored++;
              return { ...row, OLD, NEW: null };
            }
            const doc = evaluate(st.doc, row);
            const patch = st.withClause ? doc : Object.fromEntries(Object.entries(doc ?? {}).filter(([k]) => k !== '_key'));
            const result = st.type === 'update' ? db.update(coll, key, patch, options) : db.replace(coll, key, patch);
            stats.writesExecuted++;
            return { ...row, OLD: result.old, NEW: result.new };
          });
          break;
        }
        default:
          throw new AqlError(1500, `unsupported statement ${st.type}`);
      }
    }
    if (returned === undefined) {
      const last = q.statements.at(-1);
      if (!last || !['insert', 'update', 'replace', 'remove'].includes(last.type))
        throw new AqlError(1501, 'AQL: syntax error, unexpected end of query; a query must end with RETURN or a data-modification');
      return [];
    }
    return returned;
  };

  const result = run(ast, [{}]);
  return { result, stats, writes: [...writes], reads: [...reads], ast };
}
