import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCommand, tempDir } from '../helpers/cli.js';

/** `${file:PATH}` read from real files as the config is read, through the commands a person runs. */
const RELATIVE = 'rel-SECRET-0123';
const ABSOLUTE = 'abs-SECRET-4567';

function setUp() {
  const dir = tempDir();
  const elsewhere = tempDir('mcpkit-test-secrets-');
  mkdirSync(join(dir, 'secrets'));
  writeFileSync(join(dir, 'secrets', 'rel.txt'), `${RELATIVE}\n`);
  writeFileSync(join(elsewhere, 'abs.txt'), `${ABSOLUTE}\n\n`);
  writeFileSync(join(elsewhere, 'bare.txt'), 'no-newline');
  const config = join(dir, 'mcpkit.yaml');
  const server = (env: Record<string, string>) => ({ command: 'node', args: ['x.js'], env });
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: {
        a: server({ REL: '${file:secrets/rel.txt}', ABS: `\${file:${join(elsewhere, 'abs.txt')}}`, BARE: `\${file:${join(elsewhere, 'bare.txt')}}` }),
        b: server({ GONE: '${file:secrets/nope.txt}' }),
        c: server({ TEXT: '$${file:secrets/rel.txt}' }),
      },
    }),
  );
  return { dir, elsewhere, config };
}

describe('${file:PATH}', () => {
  it('reads relative paths from the config folder (not the working folder), absolute ones as they are, one trailing newline dropped', async () => {
    const { config } = setUp();
    const shown = await runCommand(['config', 'show', '--resolved', '--reveal', '--json', '--config', config], { cwd: tempDir(), env: cleanEnv() });
    const servers = JSON.parse(shown.stdout).config.mcp_servers;
    expect(servers.a.env).toEqual({ REL: RELATIVE, ABS: `${ABSOLUTE}\n`, BARE: 'no-newline' });
    // Escaped, it is text.
    expect(servers.c.env).toEqual({ TEXT: '${file:secrets/rel.txt}' });
  });

  it('reports a missing file like an unset variable, naming the file; the other servers are served', async () => {
    const { dir, config } = setUp();
    const checked = await runCommand(['config', 'validate', '--config', config], { env: cleanEnv() });
    expect(checked.code).toBe(1);
    expect(checked.stdout + checked.stderr).toContain(
      `mcp_servers.b.env.GONE: the secret file ${join(dir, 'secrets', 'nope.txt')} cannot be read (it does not exist)`,
    );
    const shown = await runCommand(['config', 'show', '--resolved', '--json', '--config', config], { env: cleanEnv() });
    expect(JSON.parse(shown.stdout).set_aside).toHaveProperty(['mcp_servers.b']);
  });

  it('is masked by config show, resolved or as written, and by errors', async () => {
    const { config } = setUp();
    for (const args of [
      ['config', 'show', '--resolved'],
      ['config', 'show', '--resolved', '--json'],
      ['config', 'show'],
      ['server', 'list', '--json'],
      ['server', 'test', 'a'],
    ]) {
      const r = await runCommand([...args, '--config', config], { env: cleanEnv() });
      expect(r.stdout + r.stderr, args.join(' ')).not.toMatch(new RegExp(`${RELATIVE}|${ABSOLUTE}|no-newline`));
    }
    const resolved = await runCommand(['config', 'show', '--resolved', '--json', '--config', config], { env: cleanEnv() });
    expect(JSON.parse(resolved.stdout).config.mcp_servers.a.env).toEqual({ REL: '********', ABS: '********', BARE: '********' });
    const written = await runCommand(['config', 'show', '--config', config], { env: cleanEnv() });
    expect(written.stdout).toContain('${file:secrets/rel.txt}');
  });

  it('refuses a FIFO or a folder at once instead of waiting on it', async () => {
    const { dir } = setUp();
    execFileSync('mkfifo', [join(dir, 'secrets', 'fifo')]);
    const fifoConfig = join(dir, 'fifo.yaml');
    writeFileSync(fifoConfig, JSON.stringify({ mcp_servers: { f: { command: 'node', env: { F: '${file:secrets/fifo}', D: '${file:secrets}' } } } }));
    const checked = await runCommand(['config', 'validate', '--config', fifoConfig], { env: cleanEnv() });
    expect(checked.stdout + checked.stderr).toContain(`the secret file ${join(dir, 'secrets', 'fifo')} is not a regular file`);
    expect(checked.stdout + checked.stderr).toContain(`the secret file ${join(dir, 'secrets')} is not a regular file`);
  });
});
