import { describe, expect, it } from 'vitest';
import { pidOfStat, processState } from '../../src/core/process-alive.js';

/** The state letter of a /proc/PID/stat line, whatever the command's name holds. */
describe('processState', () => {
  it.each<[string, string | undefined]>([
    ['1234 (node) S 1 1234 1234 0 -1 4194560 1500 0 0 0', 'S'],
    ['1234 (node) Z 1 1234 1234 0 -1', 'Z'],
    ['1234 (node) R 1 1234', 'R'],
    ['99 (a b) c) X 1 99', 'X'], // a name with spaces and a parenthesis: the state follows the last one
    ['99 (x) Z) S 1 99', 'S'], // a name that looks like a state
    ['1234 node S 1', undefined], // not a stat line
    ['1234 (node)', undefined],
    ['', undefined],
  ])('%j', (stat, want) => {
    expect(processState(stat)).toBe(want);
  });
});

/** The pid a stat line numbers its process with: /proc is trusted only when /proc/self says ours. */
describe('pidOfStat', () => {
  it.each<[string, number | undefined]>([
    ['1234 (node) S 1 1234', 1234],
    ['1 (init (x)) S 0 1', 1],
    ['(node) S 1', undefined],
    ['12a (node) S', undefined],
    ['', undefined],
  ])('%j', (stat, want) => {
    expect(pidOfStat(stat)).toBe(want);
  });
});
