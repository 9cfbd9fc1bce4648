import { describe, expect, it } from 'vitest';
import {
  isKeepAliveName,
  keepAliveHintMs,
  keepAliveHintOfHeaders,
  keepTimingOf,
  keptForMs,
  pastKeeping,
  UNDICI_KEEP_TIMING,
} from '../../../src/proxy/upstream/keep-alive-timing.js';

describe('keepAliveHintMs (a Keep-Alive header read as undici reads it: the first timeout= with digits)', () => {
  it.each([
    ['timeout=5', 5_000],
    ['timeout=5, max=1000', 5_000],
    ['max=100, timeout=60', 60_000],
    ['timeout=0', 0],
    ['timeout=, timeout=7', 7_000],
    ['timeout=12abc', 12_000],
    ['Timeout=5', undefined],
    ['max=5', undefined],
    ['', undefined],
    ['timeout=', undefined],
    ['timeout=abc', undefined],
  ])('%j is %j ms, as text and as the raw bytes undici hands over', (value, ms) => {
    expect(keepAliveHintMs(value)).toBe(ms);
    expect(keepAliveHintMs(Buffer.from(value, 'latin1'))).toBe(ms);
    expect(keepAliveHintMs(new Uint8Array(Buffer.from(value, 'latin1')))).toBe(ms);
  });
});

describe('keepAliveHintOfHeaders (every Keep-Alive header joined in order, as undici joins them, then read)', () => {
  const raw = (...pairs: string[]) => pairs.map((text) => Buffer.from(text, 'latin1'));
  it.each<[string, unknown, number | undefined]>([
    ['one header', raw('Keep-Alive', 'timeout=5'), 5_000],
    ['none', raw('Content-Type', 'application/json'), undefined],
    ['a later header names the timeout', raw('Keep-Alive', 'max=5', 'Connection', 'keep-alive', 'keep-alive', 'timeout=3'), 3_000],
    ['the first timeout= of the joined text', raw('Keep-Alive', 'timeout=9', 'Keep-Alive', 'timeout=3'), 9_000],
    [
      "a timeout= whose digits begin the next header's value (undici joins with nothing between)",
      raw('Keep-Alive', 'max=5, timeout=', 'Keep-Alive', '4'),
      4_000,
    ],
    ['text, not bytes', ['keep-alive', 'timeout=2'], 2_000],
    ['not a list', undefined, undefined],
    ['a name without its value', raw('Keep-Alive'), undefined],
  ])('%s', (_what, headers, ms) => {
    expect(keepAliveHintOfHeaders(headers)).toBe(ms);
  });
});

describe('isKeepAliveName', () => {
  it.each([
    ['keep-alive', true],
    ['Keep-Alive', true],
    ['KEEP-ALIVE', true],
    ['keep_alive', false],
    ['keep-alivex', false],
    ['connection', false],
    ['', false],
  ])('%j: %j, as text and as bytes', (name, is) => {
    expect(isKeepAliveName(name)).toBe(is);
    expect(isKeepAliveName(Buffer.from(name, 'latin1'))).toBe(is);
  });
});

describe('keptForMs (how long an idle connection may still carry a request)', () => {
  it.each([
    ['no hint: undici keeps its default', undefined, UNDICI_KEEP_TIMING, 4_000],
    ["Node's server (timeout=5): less the 2 s threshold", 5_000, UNDICI_KEEP_TIMING, 3_000],
    ['a hint at the threshold: none (undici does not reuse it)', 2_000, UNDICI_KEEP_TIMING, 0],
    ['a hint below the threshold: none, never negative', 1_000, UNDICI_KEEP_TIMING, 0],
    ['a long hint: at most the maximum', 3_600_000, UNDICI_KEEP_TIMING, 600_000],
    ["a pool's own timing", 10_000, { defaultMs: 30_000, thresholdMs: 500, maxMs: 60_000 }, 9_500],
    ["a pool's own default, no hint", undefined, { defaultMs: 30_000, thresholdMs: 500, maxMs: 60_000 }, 30_000],
  ])('%s', (_what, hintMs, timing, ms) => {
    expect(keptForMs(hintMs, timing)).toBe(ms);
  });
});

describe('pastKeeping (too old to write a request on)', () => {
  it.each([
    [2_999, 5_000, false],
    [3_000, 5_000, true],
    [3_999, undefined, false],
    [4_000, undefined, true],
    [0, 1_000, true],
  ])('idle %i ms, hint %j ms: %j', (idleMs, hintMs, past) => {
    expect(pastKeeping(idleMs, hintMs, UNDICI_KEEP_TIMING)).toBe(past);
  });
});

describe("keepTimingOf (an undici Agent's options)", () => {
  it.each([
    ['none: the defaults', {}, UNDICI_KEEP_TIMING],
    [
      'all three',
      { keepAliveTimeout: 30_000, keepAliveTimeoutThreshold: 1_000, keepAliveMaxTimeout: 90_000 },
      { defaultMs: 30_000, thresholdMs: 1_000, maxMs: 90_000 },
    ],
    ['a zero threshold is kept', { keepAliveTimeoutThreshold: 0 }, { ...UNDICI_KEEP_TIMING, thresholdMs: 0 }],
    [
      'unusable values: the defaults',
      { keepAliveTimeout: 0, keepAliveTimeoutThreshold: -5, keepAliveMaxTimeout: Number.POSITIVE_INFINITY },
      UNDICI_KEEP_TIMING,
    ],
    ['not numbers: the defaults', { keepAliveTimeout: '30000', keepAliveTimeoutThreshold: null }, UNDICI_KEEP_TIMING],
  ])('%s', (_what, options, timing) => {
    expect(keepTimingOf(options)).toEqual(timing);
  });
});
