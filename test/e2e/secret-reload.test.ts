import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { serveStdioClient } from '../helpers/serve.js';
import { childPids, SERVERS, waitFor } from '../helpers/upstreams.js';

/**
 * A secret file changed under a running serve reaches the servers that use it: their connections
 * restart with the new value, the others are untouched. One secret lives outside the config's
 * folder in a Kubernetes Secret's layout (`token -> ..data/token`, `..data -> ..v1`, swapped by
 * renaming a new `..data` link over the old one); one beside the config, rewritten in place.
 */

/** server-everything, its command line tagged so that its process can be told from the others. */
const everything = (tag: string, env: Record<string, string>) => ({ ...SERVERS.everythingProcess, args: [...SERVERS.everythingProcess.args, tag], env });

const textOf = (r: CallToolResult) => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

async function pidOf(servePid: number, tag: string): Promise<number | undefined> {
  const all = async (pid: number): Promise<number[]> => {
    const children = await childPids(pid);
    return [...children, ...(await Promise.all(children.map(all))).flat()];
  };
  for (const pid of await all(servePid)) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(tag)) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

describe('serve follows the secret files its config uses', () => {
  const dir = tempDir();
  const mounted = tempDir('mcpkit-test-run-secrets-');
  let session: Awaited<ReturnType<typeof serveStdioClient>>;

  const envOf = async (server: string) => {
    const result = (await session.client.callTool({ name: `${server}__get-env`, arguments: {} })) as CallToolResult;
    expect(result.isError, textOf(result)).toBeFalsy();
    return JSON.parse(textOf(result)) as Record<string, string>;
  };

  beforeAll(async () => {
    mkdirSync(join(mounted, '..v1'));
    writeFileSync(join(mounted, '..v1', 'token'), 'kube-v1\n');
    symlinkSync('..v1', join(mounted, '..data'));
    symlinkSync('..data/token', join(mounted, 'token'));
    writeFileSync(join(dir, 'local.txt'), 'local-v1\n');
    const config = join(dir, 'mcpkit.yaml');
    writeFileSync(
      config,
      JSON.stringify({
        mcp_servers: {
          kube: everything('tag-kube', { SECRET: `\${file:${join(mounted, 'token')}}` }),
          local: everything('tag-local', { SECRET: '${file:local.txt}' }),
          plain: everything('tag-plain', { SECRET: 'plain' }),
        },
      }),
    );
    session = await serveStdioClient(config, 'secret-reload');
  });
  afterAll(async () => {
    await session?.client.close();
  });

  it('gives each server its secret as read when serve starts', async () => {
    expect((await envOf('kube')).SECRET).toBe('kube-v1');
    expect((await envOf('local')).SECRET).toBe('local-v1');
    expect((await envOf('plain')).SECRET).toBe('plain');
  });

  it('restarts only the server whose mounted secret was swapped (a ..data link renamed over)', async () => {
    const [kube, local, plain] = await Promise.all(['tag-kube', 'tag-local', 'tag-plain'].map((tag) => pidOf(session.pid, tag)));
    expect(kube && local && plain).toBeTruthy();
    mkdirSync(join(mounted, '..v2'));
    writeFileSync(join(mounted, '..v2', 'token'), 'kube-v2\n');
    symlinkSync('..v2', join(mounted, '..data_tmp'));
    renameSync(join(mounted, '..data_tmp'), join(mounted, '..data'));
    expect(await waitFor(async () => (await envOf('kube')).SECRET === 'kube-v2', 20_000, 200), session.stderr()).toBe(true);
    expect(session.stderr()).toMatch(/config reloaded \(generation \d+\): servers restarted: kube(;|\n|$)/);
    expect(await pidOf(session.pid, 'tag-kube')).not.toBe(kube);
    expect(await pidOf(session.pid, 'tag-local')).toBe(local);
    expect(await pidOf(session.pid, 'tag-plain')).toBe(plain);
  });

  it('restarts only the server whose secret beside the config was rewritten', async () => {
    const [kube, plain] = await Promise.all(['tag-kube', 'tag-plain'].map((tag) => pidOf(session.pid, tag)));
    writeFileSync(join(dir, 'local.txt'), 'local-v2\n');
    expect(await waitFor(async () => (await envOf('local')).SECRET === 'local-v2', 20_000, 200), session.stderr()).toBe(true);
    expect(await pidOf(session.pid, 'tag-kube')).toBe(kube);
    expect(await pidOf(session.pid, 'tag-plain')).toBe(plain);
    // The value itself is in no line serve wrote.
    expect(session.stderr()).not.toMatch(/kube-v|local-v/);
  });
});
