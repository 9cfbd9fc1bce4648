import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceFiles } from '../../scripts/reference.js';

/** docs/reference/ is made from the code; a file that differs from what it makes now is stale. */
describe('docs/reference is current', () => {
  const root = join(import.meta.dirname, '../..');
  it.each(Object.entries(referenceFiles(root)))('%s', (path, text) => {
    const written = readFileSync(join(root, path), 'utf8');
    expect(written === text, `${path} is stale: run npm run docs:reference and commit it`).toBe(true);
  });

  it('names every command, every error code and the keys people look for', () => {
    const files = referenceFiles(root);
    for (const command of ['mcpkit serve', 'mcpkit clients add', 'mcpkit retrieve search', 'mcpkit view install'])
      expect(files['docs/reference/cli.md']).toContain(`### \`${command}\``);
    for (const code of ['INVALID_INPUT', 'RATE_LIMITED', 'CONFIG_INVALID']) expect(files['docs/reference/errors.md']).toContain(`\`${code}\``);
    for (const key of ['mcp_servers.NAME.command', 'tool_views.NAME.exposure', 'serve.clients.NAME.rate', 'serve.store.url'])
      expect(files['docs/reference/config.md']).toContain(`\`${key}\``);
  });
});
