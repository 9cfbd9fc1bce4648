import { UNKNOWN_TOOL_MARK } from './protocol.js';

/**
 * What runs inside the engine before a script (./sandbox-worker.ts), with the host's functions and
 * the tree of tools; it returns `{ finish, describe }` for the worker. The script may change
 * anything of its world, this included; what the bootstrap needs later it takes at its start
 * (JSON, String, slice), and the host only ever reads strings back, which it bounds again.
 *
 * An Error made from a host's failure (a tool call's, sleep's) is remembered with the failure as
 * the host sent it: a script that does not catch it ends with that code, details and hint, and no
 * script can make an Error of its own pass for one.
 */
export const BOOTSTRAP = `(function (call, log, hostSleep, tree) {
  const stringify = JSON.stringify, parse = JSON.parse, toText = String;
  const slice = Function.prototype.call.bind(String.prototype.slice);
  const fromHost = new WeakMap();
  const failure = (text) => {
    const e = parse(text);
    const error = new Error(e.message);
    error.code = e.code;
    if (e.details !== undefined) error.details = e.details;
    if (e.hint !== undefined) error.hint = e.hint;
    fromHost.set(error, e);
    return error;
  };
  const rethrow = (error) => { throw failure(error); };
  const tool = (name) => function (args) {
    const text = stringify(args === undefined ? {} : args);
    return call(name, text === undefined ? '{}' : text).then((answer) => parse(answer), rethrow);
  };
  // A name the tree does not have still goes to the host, which answers as for any call of an
  // unknown (or withheld, or not allowed) tool; 'then' and Object's own names stay undefined, so a
  // group is never taken for a promise.
  const plain = (name) => typeof name !== 'string' || name === 'then' || name in Object.prototype;
  const unknown = (group, name) => tool('${UNKNOWN_TOOL_MARK}' + stringify([group, name]));
  const groupOf = (group, members) =>
    new Proxy(Object.freeze(members), { get: (target, name) => (Object.prototype.hasOwnProperty.call(target, name) ? target[name] : plain(name) ? undefined : unknown(group, name)) });
  const groups = {};
  for (const group of Object.keys(tree)) {
    const members = {};
    for (const name of Object.keys(tree[group])) members[name] = tool(tree[group][name]);
    groups[group] = groupOf(group, members);
  }
  const tools = new Proxy(Object.freeze(groups), { get: (target, name) => (Object.prototype.hasOwnProperty.call(target, name) ? target[name] : plain(name) ? undefined : groupOf(name, {})) });
  const show = (value) => {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return String(value.stack || value);
    try { const text = stringify(value); return text === undefined ? String(value) : text; } catch { return String(value); }
  };
  const printer = (level) => (...args) => log(level, args.map(show).join(' '));
  globalThis.tools = tools;
  globalThis.console = Object.freeze({ log: printer('log'), info: printer('info'), debug: printer('debug'), warn: printer('warn'), error: printer('error') });
  globalThis.sleep = (ms) => hostSleep(typeof ms === 'number' ? ms : NaN).then(() => undefined, rethrow);
  const finish = (value) => { try { const text = stringify(value === undefined ? null : value); return typeof text === 'string' ? text : 'null'; } catch (error) { return { error: String(error) }; } };
  // What the run ended with, as JSON, each text cut to max characters (the host cuts to bytes).
  const describe = (e, max) => {
    const clip = (value) => { const text = toText(value); return text.length > max ? slice(text, 0, max) : text; };
    // The engine throws null where it cannot even make the error: out of memory.
    if (e === null || e === undefined) return null;
    if (typeof e !== 'object') return stringify({ name: 'Error', message: clip(e) });
    const host = fromHost.get(e);
    return stringify({
      name: clip(e.name === undefined ? 'Error' : e.name),
      message: clip(e.message === undefined ? '' : e.message),
      ...(typeof e.stack === 'string' ? { stack: clip(e.stack) } : {}),
      ...(host ? { code: host.code, details: host.details, hint: host.hint } : {}),
    });
  };
  return { finish, describe };
})`;
