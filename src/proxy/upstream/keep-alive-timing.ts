/**
 * How long an idle connection to an HTTP upstream may still carry a request: undici's own rule,
 * judged when a request is about to be written (./idle-connections.ts) rather than by undici's
 * timer, which runs late on a loaded machine. A server names how long it keeps an idle connection
 * in its answer's `Keep-Alive: timeout=N` (Node's does: 5 s by default); undici keeps a connection
 * that long less a threshold (2 s), which covers the time the end of the answer took to reach the
 * client and the request to reach the server; without a hint, its default (4 s). A connection idle
 * for longer is one the server may be closing as the request lands on it: a request written on it
 * can fail unanswered, and the client cannot tell whether the server read it. Pure.
 */

/** undici's keep-alive options (an Agent's `keepAliveTimeout`, `keepAliveTimeoutThreshold`, `keepAliveMaxTimeout`). */
export interface KeepTiming {
  /** How long a connection is kept when the server gave no hint. */
  defaultMs: number;
  /** How much less than the server's hint a connection is kept. */
  thresholdMs: number;
  /** The longest a connection is kept, whatever the hint. */
  maxMs: number;
}

/** undici's defaults, the same in Node 20's bundled undici (6.x) and in undici 7. */
export const UNDICI_KEEP_TIMING: KeepTiming = { defaultMs: 4_000, thresholdMs: 2_000, maxMs: 600_000 };

/** The timing of a pool made with these options (undici's Agent options), its defaults where they name none or an unusable value. */
export function keepTimingOf(options: Record<string, unknown>): KeepTiming {
  const pick = (value: unknown, fallback: number, least: number) => (typeof value === 'number' && Number.isFinite(value) && value >= least ? value : fallback);
  return {
    defaultMs: pick(options.keepAliveTimeout, UNDICI_KEEP_TIMING.defaultMs, 1),
    thresholdMs: pick(options.keepAliveTimeoutThreshold, UNDICI_KEEP_TIMING.thresholdMs, 0),
    maxMs: pick(options.keepAliveMaxTimeout, UNDICI_KEEP_TIMING.maxMs, 1),
  };
}

/** A header's name or value as undici hands it over: raw bytes (Node 20's undici) or text. */
export type HeaderText = string | Uint8Array;

/** Read byte by byte, not decoded: decoding each name of each answer costs more than the rest of the watch. */
const codeAt = (text: HeaderText, i: number): number => (typeof text === 'string' ? text.charCodeAt(i) : text[i]!);
const lower = (code: number): number => (code >= 65 && code <= 90 ? code + 32 : code);
/** Whether `word` is in `text` at `at`: in any case (a header name), or exactly (undici's `timeout=`). */
const isAt = (text: HeaderText, at: number, word: string, anyCase: boolean): boolean => {
  if (at + word.length > text.length) return false;
  for (let i = 0; i < word.length; i++) {
    const code = codeAt(text, at + i);
    if ((anyCase ? lower(code) : code) !== word.charCodeAt(i)) return false;
  }
  return true;
};

/** True for the name `Keep-Alive`, in any case. */
export function isKeepAliveName(name: HeaderText): boolean {
  return name.length === 10 && isAt(name, 0, 'keep-alive', true);
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

/** The idle time, in ms, a `Keep-Alive` header's value names (`timeout=5` is 5000), read as undici reads it (the first `timeout=` with digits); none: undefined. */
export function keepAliveHintMs(value: HeaderText): number | undefined {
  for (let at = 0; at < value.length; at++) {
    if (!isAt(value, at, 'timeout=', false)) continue;
    let seconds = 0;
    let i = at + 8;
    for (; i < value.length && isDigit(codeAt(value, i)); i++) seconds = seconds * 10 + codeAt(value, i) - 48;
    if (i > at + 8) return seconds * 1_000;
  }
  return undefined;
}

/**
 * The `keep-alive` hint among undici's raw headers (name, value, name, value...: Buffers, or
 * strings). undici joins every Keep-Alive header's value, in order and with nothing between, before
 * it looks for `timeout=`: so is it read here (`max=5` then `timeout=3` is a 3 s hint), or undici
 * would end a connection this watch still takes for fresh.
 */
export function keepAliveHintOfHeaders(headers: unknown): number | undefined {
  if (!Array.isArray(headers)) return undefined;
  let joined: HeaderText | undefined;
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name: unknown = headers[i];
    const value: unknown = headers[i + 1];
    if (!isHeaderText(name) || !isHeaderText(value) || !isKeepAliveName(name)) continue;
    joined = joined === undefined ? value : latin1(joined) + latin1(value);
  }
  return joined === undefined ? undefined : keepAliveHintMs(joined);
}

const latin1 = (text: HeaderText): string => (typeof text === 'string' ? text : Buffer.from(text.buffer, text.byteOffset, text.length).toString('latin1'));

const isHeaderText = (text: unknown): text is HeaderText => typeof text === 'string' || text instanceof Uint8Array;

/** How long a connection whose last answer gave this hint (undefined: none) may stay idle and still carry a request; 0: none. */
export function keptForMs(hintMs: number | undefined, timing: KeepTiming): number {
  if (hintMs === undefined) return timing.defaultMs;
  return Math.max(0, Math.min(hintMs - timing.thresholdMs, timing.maxMs));
}

/** True when a connection idle for `idleMs` is too old to write a request on: the server may be closing it. */
export function pastKeeping(idleMs: number, hintMs: number | undefined, timing: KeepTiming): boolean {
  return idleMs >= keptForMs(hintMs, timing);
}
