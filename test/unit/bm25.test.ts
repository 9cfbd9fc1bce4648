import { describe, expect, it } from 'vitest';
import { idf, termWeight } from '../../src/core/bm25.js';

describe('BM25 (core/bm25.ts), the one formula of both searches', () => {
  it.each([
    ['a term in every document still weighs a little', 10, 10, Math.log(1 + 0.5 / 10.5)],
    ['a term in one document of ten', 10, 1, Math.log(1 + 9.5 / 1.5)],
    ['a term in none', 10, 0, Math.log(1 + 10.5 / 0.5)],
  ])('idf: %s', (_what, docs, holding, expected) => {
    expect(idf(docs, holding)).toBeCloseTo(expected, 12);
  });

  it.each([
    ['absent', 2, 0, 100, 100, 1.2, 0],
    ['once, average length', 2, 1, 100, 100, 1.2, 2],
    ['repeats saturate toward (k1 + 1) x rarity', 2, 1000, 100, 100, 1.2, (2 * 1000 * 2.2) / (1000 + 1.2)],
    ['a longer document weighs the same count less', 2, 1, 400, 100, 1.2, (2 * 2.2) / (1 + 1.2 * (0.25 + 0.75 * 4))],
    ['k1 2, as the tool search uses', 1, 3, 50, 50, 2, (3 * 3) / (3 + 2)],
  ])('termWeight: %s', (_what, rarity, tf, length, average, k1, expected) => {
    expect(termWeight(rarity, tf, length, average, k1)).toBeCloseTo(expected, 12);
  });
});
