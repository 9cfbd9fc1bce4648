import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeConfig } from '../helpers/upstreams.js';

/**
 * A tab press at a name runs `mcpkit complete-names` (src/cli/complete-names-fast-path.ts skips
 * oclif for a plain line): for a table of lines, the fast path prints byte for byte what oclif's
 * command prints. Each path runs the whole table in one process of its own, a separator after each line.
 */
const SEPARATOR = '\u0000end of line\n';

/** A program that runs each line of argv[2] (JSON) one way, in this process, and prints the separator after each. */
function tableRunner(dir: string, how: 'fast' | 'oclif'): string {
  const dist = (file: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist/cli', file)).href);
  const runLine =
    how === 'fast'
      ? `const { fastCompleteNames } = await import(${dist('complete-names-fast-path.js')});
const runLine = async (line) => { if (!(await fastCompleteNames(line))) process.stdout.write('(left to oclif)\\n'); };`
      : `const { main } = await import(${dist('main.js')});
const runLine = (line) => main(${JSON.stringify(pathToFileURL(BIN).href)}, ['complete-names', ...line]);`;
  const file = join(dir, `${how}.mjs`);
  writeFileSync(
    file,
    `${runLine}\nfor (const line of JSON.parse(process.argv[2])) { await runLine(line); process.stdout.write(${JSON.stringify(SEPARATOR)}); }\n`,
  );
  return file;
}

describe('complete-names without oclif', () => {
  it('prints what the command prints through oclif, for each kind and way of naming the config', async () => {
    const file = writeConfig({
      mcp_servers: {
        alpha: { command: 'x' },
        beta: { url: 'https://b.example/mcp', headers: { A: '${UNSET_IN_THIS_SHELL}' } },
      },
      tool_views: { research: { servers: ['alpha'] }, wide: { servers: ['alpha', 'beta'] } },
      serve: { clients: { alice: { token_sha256: 'a'.repeat(64) }, bob: { token_sha256: 'b'.repeat(64) } } },
      composite_tools: { twice: { parallel: { a: { tool: 'alpha.echo', args: {} } } } },
      retrieve: { roots: { docs: '.' } },
    });
    const lines = [
      ['servers'], // the config of the folder
      ['servers', '--config', file],
      ['views', `--config=${file}`],
      ['clients', '--config', file],
      ['composites', '--config', file],
      ['roots', '--config', file],
      ['tools', '--config', file],
      ['servers', '--config', join(dirname(file), 'missing.yaml')],
    ];
    const runners = tempDir('mcpkit-completion-parity-');
    const env = cleanEnv();
    const run = (how: 'fast' | 'oclif') => runCli([JSON.stringify(lines)], { entry: tableRunner(runners, how), env, cwd: dirname(file) });
    const [fast, oclif] = await Promise.all([run('fast'), run('oclif')]);
    expect(fast.code, fast.stderr).toBe(0);
    expect(fast.stderr).toBe('');
    // A config that cannot be read is oclif's to report (the fast path printed nothing of it).
    expect(oclif.stderr).toMatch(/^Error \[CONFIG_NOT_FOUND\]: The config file .*missing\.yaml/);
    const fastLines = fast.stdout.split(SEPARATOR);
    const oclifLines = oclif.stdout.split(SEPARATOR);
    expect(fastLines).toHaveLength(lines.length + 1);
    expect([fastLines[7], oclifLines[7]]).toEqual(['(left to oclif)\n', '']);
    // Every other line was the fast path's to print, and it printed oclif's output byte for byte.
    fastLines.splice(7, 1);
    oclifLines.splice(7, 1);
    expect(fastLines.join(SEPARATOR)).toBe(oclifLines.join(SEPARATOR));
    expect(fastLines.slice(0, 7)).toEqual([
      'alpha\nbeta\n',
      'alpha\nbeta\n',
      'research\nwide\n',
      'alice\nbob\n',
      'twice\n',
      'docs\n',
      expect.stringMatching(/^config_path\n(.+\n)+$/),
    ]);
  }, 60_000);
});
