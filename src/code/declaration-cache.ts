/**
 * Declarations made once per tool definition: describe and search answer the same tools again and
 * again, and a walk of a large schema costs its whole budget each time. The anchor is an object
 * that stands for one definition while it holds (the catalog entry of one catalog generation): a
 * new listing makes new entries, so what it changed is written anew, and what the old ones made
 * goes with them (a WeakMap holds nothing alive). Without an anchor nothing is kept.
 */

const made = new WeakMap<object, Map<string, string>>();

/** What `make` gives for this anchor and key, made the first time only. */
export function madeOnce(anchor: object | undefined, key: string, make: () => string): string {
  if (!anchor) return make();
  let own = made.get(anchor);
  if (!own) made.set(anchor, (own = new Map()));
  let text = own.get(key);
  if (text === undefined) own.set(key, (text = make()));
  return text;
}
