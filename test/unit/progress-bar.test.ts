import { describe, expect, it } from 'vitest';
import { progressLine } from '../../src/cli/terminal/progress-bar.js';

describe('progressLine', () => {
  it.each([
    ['a share of a total', { progress: 2, total: 8 }, 80, '[#####---------------]  25%'],
    ['done', { progress: 8, total: 8, message: 'finished' }, 80, '[####################] 100% finished'],
    ['past the total is full', { progress: 9, total: 8 }, 80, '[####################] 100%'],
    ['no total: the count', { progress: 3, message: 'step 3' }, 80, '[3] step 3'],
    ['a message on one line, control characters shown', { progress: 1, message: 'a\nb\u001b[31mred' }, 80, '[1] a b\\u001b[31mred'],
    ['cut to the width', { progress: 1, total: 2, message: 'x'.repeat(100) }, 40, `[##########----------]  50% ${'x'.repeat(11)}…`],
  ])('%s', (_what, update, width, want) => {
    expect(progressLine(update, width)).toBe(want);
  });
});
