import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/root.js';

/**
 * The files mcpkit starts from most (the script forms of serve, the daemon and oclif, the daemon's client,
 * `daemon start|stop|status`, the search worker) hold ASCII only. One character outside it makes
 * V8 hold the whole file as two-byte text, decoded at every start: serve's 4 MB script cost ~40 ms
 * CPU a session that way (a regular expression in src/core/errors.ts; esbuild escapes strings and
 * templates, not patterns). Escape such a character in the source (`\u27E6`), or, in a package,
 * as scripts/build-scripts.mjs does for ansis.
 */
const STARTED = [
  ...readdirSync(join(ROOT, 'dist/cli'))
    .filter((f) => f.endsWith('.cjs'))
    .map((f) => join('dist/cli', f)),
  ...readdirSync(join(ROOT, 'dist/retrieve'))
    .filter((f) => f.endsWith('.cjs'))
    .map((f) => join('dist/retrieve', f)),
];

describe('the files mcpkit starts from are ASCII', () => {
  it('finds the script forms to check', () => {
    expect(STARTED).toEqual(
      expect.arrayContaining([
        'dist/cli/serve-fast-path.script.cjs',
        'dist/cli/daemon-server.script.cjs',
        'dist/cli/cli-main.script.cjs',
        'dist/retrieve/search-worker.cjs',
      ]),
    );
  });

  it.each(STARTED)('%s', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    let at = -1;
    for (let i = 0; i < text.length && at < 0; i++) if (text.charCodeAt(i) > 0x7f) at = i;
    const line = at < 0 ? 0 : text.slice(0, at).split('\n').length;
    expect(at < 0 ? undefined : `line ${line}: …${text.slice(Math.max(0, at - 60), at + 20)}…`).toBeUndefined();
  });
});
