import { describe, expect, it } from 'vitest';
import { formatTraceparent, parseTraceparent } from '../../src/audit/tracing.js';

describe('W3C traceparent', () => {
  const id = '4bf92f3577b34da6a3ce929d0e0e4736';
  const span = '00f067aa0ba902b7';
  it.each([
    [`00-${id}-${span}-01`, { traceId: id, spanId: span, traceFlags: 1 }],
    [`00-${id}-${span}-00`, { traceId: id, spanId: span, traceFlags: 0 }],
    [` 00-${id}-${span}-01 `, { traceId: id, spanId: span, traceFlags: 1 }],
    [`ff-${id}-${span}-01`, undefined], // version ff is invalid
    [`00-${'0'.repeat(32)}-${span}-01`, undefined], // all-zero trace id
    [`00-${id}-${'0'.repeat(16)}-01`, undefined], // all-zero span id
    [`00-${id.toUpperCase()}-${span}-01`, undefined], // lowercase hex only
    [`00-${id}-${span}`, undefined],
    ['', undefined],
    [42, undefined],
    [undefined, undefined],
  ])('%j', (value, parsed) => {
    expect(parseTraceparent(value)).toEqual(parsed);
  });

  it('formats what it parses', () => {
    const value = `00-${id}-${span}-01`;
    expect(formatTraceparent(parseTraceparent(value)!)).toBe(value);
  });
});
