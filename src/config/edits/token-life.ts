import { ToolError } from '../../core/errors.js';

/**
 * How long an issued token lives: `clients add|set|rotate --expires` (a duration or a date, kept
 * in the config as an absolute time, so every replica and every reload agree on the instant) and
 * `clients rotate --grace` (how long the old token goes on working). Pure: `now` is given.
 */

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The longest duration taken (100 years): past it a time would leave what a Date can hold. */
const LONGEST_MS = 100 * 365 * UNIT_MS.d;

/** "90s", "10m", "12h", "30d" as milliseconds; undefined for anything else (no fractions, no zero, nothing past 100 years). */
export function durationMs(text: string): number | undefined {
  const match = /^([1-9]\d{0,8})(s|m|h|d)$/.exec(text.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : undefined;
  return ms !== undefined && ms <= LONGEST_MS ? ms : undefined;
}

/** A calendar date (its start, 00:00 UTC) or an ISO time with a zone; undefined for anything else. */
function instantOf(text: string): number | undefined {
  const trimmed = text.trim();
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(trimmed);
  if (date) {
    const at = Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    // Date.UTC rolls 2026-02-31 over into March: a day that does not exist is no date.
    return new Date(at).toISOString().slice(0, 10) === trimmed ? at : undefined;
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : at;
}

/**
 * What `--expires` gives: the ISO time the token stops working, or `never` (no expiry). A duration
 * counts from now; a time already past is refused, as a token born expired is no use to anyone.
 */
export function expiryOf(text: string, now: number): string | 'never' {
  if (text.trim() === 'never') return 'never';
  const duration = durationMs(text);
  const at = duration !== undefined ? now + duration : instantOf(text);
  if (at === undefined)
    throw new ToolError('INVALID_INPUT', `--expires ${JSON.stringify(text)} is neither a duration nor a date.`, {
      hint: 'Give a duration in s, m, h or d (e.g. --expires 30d), a date (--expires 2026-12-31, its start in UTC), an ISO time with a zone, or --expires never.',
    });
  if (at <= now)
    throw new ToolError('INVALID_INPUT', `--expires ${text} is ${new Date(at).toISOString()}, which has already passed.`, {
      hint: 'Give a time in the future, or a duration such as --expires 30d.',
    });
  return new Date(at).toISOString();
}

/** What `--grace` gives: how long the old token keeps working, in milliseconds. */
export function graceMs(text: string): number {
  const ms = durationMs(text);
  if (ms === undefined)
    throw new ToolError('INVALID_INPUT', `--grace ${JSON.stringify(text)} is not a duration.`, {
      hint: 'Give a whole number with s, m, h or d, e.g. --grace 10m: the old token keeps working that long, then is refused.',
    });
  return ms;
}

/** The deadline (ms) a config time stands for; undefined for none or for text that is no time (the schema refuses such text). */
export function deadlineOf(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const at = Date.parse(iso);
  return Number.isNaN(at) ? undefined : at;
}

/**
 * Until when a rotated-out token keeps working: the grace from now, but never past the old
 * token's own expiry (a grace does not revive a token). Undefined: no grace is left to give.
 */
export function graceUntil(now: number, grace: number, oldExpiry: string | undefined): string | undefined {
  const expiry = deadlineOf(oldExpiry);
  const until = expiry === undefined ? now + grace : Math.min(now + grace, expiry);
  return until > now ? new Date(until).toISOString() : undefined;
}
