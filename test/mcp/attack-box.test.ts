import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { hostFacts } from '../../src/proxy/sandbox/host-facts.js';
import { launchPlan } from '../../src/proxy/sandbox/launch-plan.js';
import { cleanEnv, ROOT, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';

/**
 * Boundary "an upstream in a box -> this machine" (docs/SECURITY.md), with real bubblewrap: a box
 * binds a named file, not its folder, where the file is in the home folder or beside mcpkit's own
 * files; it never shows mcpkit's config, lock, audit log, state or cache; its /tmp has a size; its
 * processes have a count. Skipped, saying so, where bubblewrap cannot make a box (CI installs it).
 */
const facts = hostFacts(process.env);
const usable = facts.bwrap !== undefined;
if (!usable) console.warn(`skipped: the box attack tests (bubblewrap cannot be used here: ${facts.bwrapProblem})`);

const PROBE = join(ROOT, 'test/fixtures/probe-server.mjs');

/** A home folder with secrets, a project with mcpkit's files, and the probe server copied where the test says. */
function world() {
  const home = tempDir();
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\n');
  mkdirSync(join(home, '.config', 'mcpkit'), { recursive: true });
  writeFileSync(join(home, '.config', 'mcpkit', 'config.yaml'), 'serve: { token: tok-in-user-config }\n');
  mkdirSync(join(home, '.local', 'state', 'mcpkit', 'oauth'), { recursive: true });
  writeFileSync(join(home, '.local', 'state', 'mcpkit', 'oauth', 'github.json'), '{"access_token":"gho_x"}');
  copyFileSync(PROBE, join(home, 'server.mjs'));
  const project = tempDir();
  copyFileSync(PROBE, join(project, 'server.mjs'));
  writeFileSync(join(project, 'notes.md'), '# notes\n');
  writeFileSync(join(project, 'mcpkit.lock.yaml'), 'version: 1\nservers: {}\n');
  writeFileSync(join(project, 'audit.jsonl'), '{"client":"other-agent"}\n');
  return { home, project };
}

async function serve(project: string, home: string, servers: Record<string, object>) {
  const config = join(project, 'mcpkit.yaml');
  writeFileSync(config, JSON.stringify({ mcp_servers: servers, serve: { audit_log: 'audit.jsonl', token: 'tok-project' } }));
  const env = cleanEnv({ HOME: home, XDG_CONFIG_HOME: undefined, XDG_CACHE_HOME: undefined, XDG_STATE_HOME: undefined });
  const served = await serveHttpInProcess(config, { env, cwd: project });
  const client = new Client({ name: 'box', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer tok-project' } } }));
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    ((await client.callTool({ name, arguments: args })) as { content: { text: string }[] }).content[0]!.text;
  return { call, close: async () => (await client.close(), await served.close()) };
}

describe.runIf(usable)("a box shows neither the home folder nor mcpkit's own files", () => {
  it('a server whose script lives in the home folder reads its script, not ~/.ssh or ~/.config/mcpkit', async () => {
    const { home, project } = world();
    const s = await serve(project, home, { homed: { command: process.execPath, args: [join(home, 'server.mjs')], sandbox: true } });
    try {
      expect(await s.call('homed__read', { path: join(home, '.ssh', 'id_rsa') })).toBe('error ENOENT');
      expect(await s.call('homed__read', { path: join(home, '.config', 'mcpkit', 'config.yaml') })).toBe('error ENOENT');
      expect(await s.call('homed__read', { path: join(home, '.local', 'state', 'mcpkit', 'oauth', 'github.json') })).toBe('error ENOENT');
      expect(JSON.parse(await s.call('homed__list', { path: home })).filter((n: string) => n !== '.npm')).toEqual(['server.mjs']);
    } finally {
      await s.close();
    }
  });

  it('a server whose script lives beside mcpkit.yaml reads neither the config, its lock nor the audit log', async () => {
    const { home, project } = world();
    const s = await serve(project, home, { beside: { command: process.execPath, args: [join(project, 'server.mjs')], sandbox: true } });
    try {
      for (const own of ['mcpkit.yaml', 'mcpkit.lock.yaml', 'audit.jsonl'])
        expect(await s.call('beside__read', { path: join(project, own) }), own).toBe('error ENOENT');
      expect(await s.call('beside__read', { path: join(project, 'notes.md') })).toBe('error ENOENT');
    } finally {
      await s.close();
    }
  });

  it('a project folder given on purpose (cwd) is readable, but mcpkit files in it are not there, even after an edit replaces them', async () => {
    const { home, project } = world();
    const s = await serve(project, home, { work: { command: process.execPath, args: [PROBE], cwd: project, sandbox: true } });
    try {
      expect(await s.call('work__read', { path: join(project, 'notes.md') })).toBe('read 8 characters');
      for (const own of ['mcpkit.yaml', 'mcpkit.lock.yaml', 'audit.jsonl'])
        expect(await s.call('work__read', { path: join(project, own) }), own).toBe('error ENOENT');
      // The first listing pinned the server's tools: the lock was written again (a rename), and is still not there.
      expect(readFileSync(join(project, 'mcpkit.lock.yaml'), 'utf8')).toContain('work');
      expect(await s.call('work__read', { path: join(project, 'mcpkit.lock.yaml') })).toBe('error ENOENT');
    } finally {
      await s.close();
    }
  });

  it('/tmp holds 64 MiB unless limits.tmp_mb says more (it is memory)', async () => {
    const { home, project } = world();
    const s = await serve(project, home, {
      small: { command: process.execPath, args: [PROBE], sandbox: true },
      bigger: { command: process.execPath, args: [PROBE], sandbox: true, limits: { tmp_mb: 100 } },
    });
    try {
      expect(await s.call('small__fill', { path: '/tmp/x', mb: 80 })).toMatch(/^error ENOSPC after (6[0-4]) MiB$/);
      expect(await s.call('bigger__fill', { path: '/tmp/x', mb: 80 })).toBe('wrote 80 MiB');
    } finally {
      await s.close();
    }
  });
});

/** Whether the unprivileged user nobody may make a box here (user namespaces for all). */
function nobodyBoxes(): boolean {
  if (!usable || process.getuid?.() !== 0) return false;
  const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', facts.bwrap!, '--unshare-all', '--ro-bind', '/', '/', 'true']);
  return r.status === 0;
}

describe('limits.processes', () => {
  const runsAsNobody = nobodyBoxes();
  if (usable && !runsAsNobody) console.warn('skipped: limits.processes in a box as an unprivileged user (this machine cannot run a box as nobody)');
  // The kernel does not hold root to RLIMIT_NPROC: the box as a person runs it is checked, the plan run as nobody.
  it.runIf(runsAsNobody && facts.prlimit !== undefined)('caps what a boxed server may start, counted in its box alone', () => {
    const script = 'n=0; for i in 1 2 3 4 5 6 7 8 9 10; do sleep 1 & n=$((n+1)); done; wait; echo "started $n"';
    const run = (processes: number | undefined) => {
      // A home of nobody's own: nothing of root's to bind.
      const nobodys = hostFacts({ ...process.env, HOME: tempDir() });
      const plan = launchPlan({ command: '/bin/sh', args: ['-c', script], sandbox: true, ...(processes ? { limits: { processes } } : {}) }, nobodys);
      if (!plan.ok) throw new Error(plan.reason);
      return spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', plan.command, ...plan.args], { encoding: 'utf8', cwd: '/' });
    };
    expect(run(undefined).stdout).toContain('started 10');
    const capped = run(4);
    expect(`${capped.stdout}${capped.stderr}`).toMatch(/Cannot fork|Resource temporarily unavailable/);
  });
});
