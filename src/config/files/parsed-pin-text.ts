import { parse } from 'yaml';
import { NOT_SIMPLE, simpleYamlValue } from './simple-yaml.js';

/**
 * The lock file's YAML, parsed once per text in a process. Parsing it is most of what reading the
 * pins costs (~30-60 ms CPU for server-everything's 13 tools, cold), and a serve read the same
 * text over and over: with the config (its drop counts), when its PinKeeper was made, before each
 * write of its own, and at the reload its own write set off (the config watcher sees the lock
 * file change). Keyed by the whole text, so any other text (another process's write, a person's
 * edit, a file that differs by a byte) is parsed as before. Every caller gets a copy of its own:
 * the pins are changed in place once read.
 */
const known = new Map<string, unknown>();
/** Texts kept: the one read and the one written are what a process meets again. */
const KEPT = 4;

/** The YAML value of a lock file's text (a copy the caller may change); throws as `parse` does. */
export function parsedPinText(text: string): unknown {
  if (known.has(text)) return structuredClone(known.get(text));
  // The form mcpkit writes is read without the `yaml` package (./simple-yaml.ts); any other text is parsed.
  const simple = simpleYamlValue(text);
  const value: unknown = simple === NOT_SIMPLE ? parse(text) : simple;
  keep(text, value);
  return structuredClone(value);
}

/**
 * `text` was just written from `body` (`HEADER + stringify(body)`): what parsing it gives is known
 * without parsing it, as long as `body` is plain data (yamlValue). The key is the text as written:
 * a text the file does not hold byte for byte once read back (a lone surrogate is written as
 * U+FFFD) is never asked for, and is parsed when read.
 */
export function writtenPinText(text: string, body: unknown): void {
  const value = yamlValue(body, new Map());
  if (value !== NOT_PLAIN) keep(text, value);
}

function keep(text: string, value: unknown): void {
  known.delete(text);
  known.set(text, value);
  for (const old of known.keys()) {
    if (known.size <= KEPT) break;
    known.delete(old);
  }
}

const NOT_PLAIN = Symbol('not plain data');

/**
 * What `parse(stringify(value))` gives, without the YAML: a property whose value is undefined is
 * left out, undefined in a list is null, and an object met twice is one object twice (stringify
 * writes an anchor and an alias, and parse resolves the alias to the same object). Anything but
 * plain data (a class instance, a function, a bigint, a symbol) is NOT_PLAIN: its YAML is not
 * guessed. Pure.
 */
export function yamlValue(value: unknown, seen: Map<object, unknown>): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value !== 'object') return NOT_PLAIN;
  if (seen.has(value)) return seen.get(value);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) {
      const copy = item === undefined ? null : yamlValue(item, seen);
      if (copy === NOT_PLAIN) return NOT_PLAIN;
      out.push(copy);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if ((proto !== Object.prototype && proto !== null) || Object.getOwnPropertySymbols(value).length) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  seen.set(value, out);
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const copy = yamlValue(item, seen);
    if (copy === NOT_PLAIN) return NOT_PLAIN;
    // defineProperty: a key named __proto__ is an own property, as parse makes it, not the prototype.
    Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
