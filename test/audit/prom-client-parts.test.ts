import * as prom from 'prom-client';
import { describe, expect, it } from 'vitest';
import * as parts from '../../src/audit/prom-client-parts.js';

// metrics.ts takes prom-client's classes from their own files (not the index, which loads
// @opentelemetry/api at every serve --http start): they must be the very classes the index exports.
describe('prom-client parts', () => {
  it.each(['Counter', 'Gauge', 'Histogram', 'Registry'] as const)('%s is the class prom-client exports', (name) => {
    expect(typeof parts[name]).toBe('function');
    expect(parts[name]).toBe(prom[name]);
  });
});
