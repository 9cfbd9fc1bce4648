import { describe, expect, it } from 'vitest';
import { launchPlan, limitArgs, namedFolders, type HostFacts } from '../../../src/proxy/sandbox/launch-plan.js';

/** A host with these paths (a folder when it ends with /, a symlink as "path -> target"). */
function host(paths: string[], over: Partial<HostFacts> = {}): HostFacts {
  const table = new Map<string, { kind: 'file' | 'dir' | 'other'; link?: string }>();
  for (const p of paths) {
    const [path, link] = p.split(' -> ') as [string, string | undefined];
    table.set(path.replace(/\/$/, ''), { kind: path.endsWith('/') ? 'dir' : 'file', ...(link ? { link } : {}) });
  }
  return {
    platform: 'linux',
    home: '/home/u',
    bwrap: '/usr/bin/bwrap',
    setsid: '/usr/bin/setsid',
    setpriv: '/usr/bin/setpriv',
    prlimit: '/usr/bin/prlimit',
    which: (c) => (c === 'node' ? '/usr/bin/node' : c === 'npx' ? '/usr/bin/npx' : undefined),
    // A folder that holds a listed path exists too.
    stat: (p) => table.get(p) ?? ([...table.keys()].some((k) => k.startsWith(`${p}/`)) ? { kind: 'dir' } : undefined),
    list: (p) => [...new Set([...table.keys()].filter((k) => k.startsWith(`${p}/`)).map((k) => k.slice(p.length + 1).split('/')[0]!))].sort(),
    ...over,
  };
}

const SYSTEM = ['/usr/', '/bin -> usr/bin', '/lib -> usr/lib', '/etc/', '/etc/shadow', '/usr/bin/node', '/home/u/', '/home/u/.npm/'];

const pairs = (args: string[], flag: string) => args.flatMap((a, i) => (a === flag ? [[args[i + 1], args[i + 2]]] : []));

describe('launchPlan', () => {
  it('boxes a server whose entry asks: no network, system folders read-only, an empty home with the npm cache, its own files', () => {
    const plan = launchPlan(
      { command: 'node', args: ['/srv/app/node_modules/pkg/dist/index.js', '--flag'], sandbox: true },
      host([...SYSTEM, '/srv/app/node_modules/pkg/dist/index.js']),
    );
    // In a session of its own, so that a terminal's Ctrl-C reaches mcpkit only (launchPlan's ownSession).
    expect(plan).toMatchObject({ ok: true, command: '/usr/bin/setsid', boxed: true, ends: 'namespace' });
    if (!plan.ok) return;
    expect(plan.args[0]).toBe('/usr/bin/bwrap');
    const args = plan.args.slice(1);
    expect(args.slice(0, 5)).toEqual(['--die-with-parent', '--new-session', '--unshare-all', '--cap-drop', 'ALL']);
    expect(args).not.toContain('--share-net');
    expect(pairs(args, '--ro-bind')).toEqual(
      expect.arrayContaining([
        ['/usr', '/usr'],
        ['/etc', '/etc'],
        ['/dev/null', '/etc/shadow'],
        ['/home/u/.npm', '/home/u/.npm'],
        ['/srv/app/node_modules', '/srv/app/node_modules'],
        ['/srv/app/node_modules/pkg/dist', '/srv/app/node_modules/pkg/dist'],
        ['/usr/bin', '/usr/bin'],
      ]),
    );
    expect(pairs(args, '--symlink')).toEqual(expect.arrayContaining([['usr/bin', '/bin']]));
    expect(args.join(' ')).toContain('--tmpfs /home/u');
    expect(args.slice(args.indexOf('--'))).toEqual(['--', 'node', '/srv/app/node_modules/pkg/dist/index.js', '--flag']);
  });

  it.each<[string, object, (args: string[]) => void]>([
    ['network: true shares the host network', { network: true }, (a) => expect(a).toContain('--share-net')],
    [
      'read: paths are bound read-only, ~ is the home folder',
      { read: ['~/notes', '/data'] },
      (a) =>
        expect(pairs(a, '--ro-bind')).toEqual(
          expect.arrayContaining([
            ['/home/u/notes', '/home/u/notes'],
            ['/data', '/data'],
          ]),
        ),
    ],
    ['write: paths are bound writable', { write: ['/out'] }, (a) => expect(pairs(a, '--bind')).toEqual([['/out', '/out']])],
    ['a path that does not exist is not bound', { read: ['/missing'] }, (a) => expect(a).not.toContain('/missing')],
  ])('%s', (_what, sandbox, check) => {
    const plan = launchPlan({ command: 'node', sandbox }, host([...SYSTEM, '/home/u/notes/', '/data/', '/out/']));
    expect(plan.ok).toBe(true);
    if (plan.ok) check(plan.args);
  });

  it.each<[string, Partial<HostFacts>, RegExp]>([
    ['no bwrap on the PATH', { bwrap: undefined, bwrapProblem: 'bwrap is not on the PATH' }, /bubblewrap cannot be used: bwrap is not on the PATH/],
    ['user namespaces off', { bwrap: undefined, bwrapProblem: 'No permissions to create new namespace' }, /No permissions to create new namespace/],
    ['not Linux', { platform: 'darwin' }, /on Linux only \(this is darwin\)/],
  ])('refuses a sandbox it cannot make (%s): never runs it unboxed', (_what, over, reason) => {
    const plan = launchPlan({ command: 'node', sandbox: true }, host(SYSTEM, over));
    expect(plan).toMatchObject({ ok: false, reason: expect.stringMatching(reason), hint: expect.stringMatching(/sandbox: false/) });
  });

  it('runs an unboxed server in a pid namespace of its own where bubblewrap works, else a session of its own, else as it is', () => {
    const namespaced = ['--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--new-session', '--', 'npx', '-y', 'pkg'];
    expect(launchPlan({ command: 'npx', args: ['-y', 'pkg'] }, host(SYSTEM))).toEqual({
      ok: true,
      command: '/usr/bin/setsid',
      args: ['/usr/bin/bwrap', ...namespaced],
      boxed: false,
      ends: 'namespace',
    });
    // Without setsid, bubblewrap is started as it is.
    expect(launchPlan({ command: 'npx', args: ['-y', 'pkg'] }, host(SYSTEM, { setsid: undefined }))).toEqual({
      ok: true,
      command: '/usr/bin/bwrap',
      args: namespaced,
      boxed: false,
      ends: 'namespace',
    });
    expect(launchPlan({ command: 'npx', args: ['-y', 'pkg'], sandbox: false }, host(SYSTEM, { bwrap: undefined }))).toEqual({
      ok: true,
      command: '/usr/bin/setsid',
      args: ['/usr/bin/setpriv', '--pdeathsig', 'TERM', '--', 'npx', '-y', 'pkg'],
      boxed: false,
      ends: 'group',
    });
    expect(launchPlan({ command: 'npx', args: ['-y', 'pkg'] }, host(SYSTEM, { bwrap: undefined, setsid: undefined }))).toEqual({
      ok: true,
      command: 'npx',
      args: ['-y', 'pkg'],
      boxed: false,
      ends: 'process',
    });
  });

  it('puts limits in front of the command with prlimit, and refuses them without prlimit', () => {
    const plan = launchPlan({ command: 'node', limits: { memory_mb: 256, open_files: 64 } }, host(SYSTEM));
    expect(plan.ok && plan.args.slice(plan.args.indexOf('--') + 1)).toEqual(['/usr/bin/prlimit', `--data=${256 * 1024 * 1024}`, '--nofile=64', '--', 'node']);
    expect(launchPlan({ command: 'node', limits: { cpu_s: 5 } }, host(SYSTEM, { prlimit: undefined }))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('prlimit'),
    });
    expect(limitArgs(undefined)).toEqual([]);
  });
});

describe('namedFolders', () => {
  it('is the folder of each argument that is a file, and the node_modules a package file is in', () => {
    const facts = host(['/usr/bin/node', '/a/b/server.mjs', '/p/node_modules/@s/x/dist/i.js', '/a/folder/']);
    expect(namedFolders({ command: 'node', args: ['/a/b/server.mjs', '/p/node_modules/@s/x/dist/i.js', '/a/folder', 'word', '--flag'] }, facts)).toEqual([
      '/a/b',
      '/p/node_modules',
      '/p/node_modules/@s/x/dist',
      '/usr/bin',
    ]);
  });

  it("reads a relative argument from the entry's cwd", () => {
    expect(namedFolders({ command: 'node', args: ['server.mjs'], cwd: '/srv' }, host(['/srv/server.mjs']))).toEqual(['/srv']);
  });
});

describe("the box keeps the home folder and mcpkit's own files out", () => {
  const box = (entry: Partial<Parameters<typeof launchPlan>[0]>, paths: string[]) => {
    const plan = launchPlan({ command: 'node', sandbox: true, ...entry }, host([...SYSTEM, ...paths]));
    if (!plan.ok) throw new Error(plan.reason);
    return plan.args.slice(1, plan.args.indexOf('--'));
  };
  const withheld = {
    files: ['/srv/p/mcpkit.yaml', '/srv/p/mcpkit.lock.yaml', '/srv/p/audit.jsonl'],
    folders: ['/home/u/.config/mcpkit', '/home/u/.local/state/mcpkit'],
  };

  it.each<[string, Partial<Parameters<typeof launchPlan>[0]>, string[], string[][], string[][]]>([
    [
      'a script in the home folder: the file, not the home folder',
      { args: ['/home/u/server.mjs'] },
      ['/home/u/server.mjs', '/home/u/.ssh/id_rsa'],
      [['/home/u/server.mjs', '/home/u/server.mjs']],
      [['/home/u', '/home/u']],
    ],
    [
      'a script deep in the home folder: the file, not its folder',
      { args: ['/home/u/tools/s/server.mjs'] },
      ['/home/u/tools/s/server.mjs'],
      [['/home/u/tools/s/server.mjs', '/home/u/tools/s/server.mjs']],
      [['/home/u/tools/s', '/home/u/tools/s']],
    ],
    [
      'a script beside mcpkit.yaml: the file, not the folder with the config',
      { args: ['/srv/p/server.mjs'], withheld },
      ['/srv/p/server.mjs', '/srv/p/mcpkit.yaml'],
      [['/srv/p/server.mjs', '/srv/p/server.mjs']],
      [['/srv/p', '/srv/p']],
    ],
    ['a script elsewhere: its folder, as before', { args: ['/srv/tools/server.mjs'], withheld }, ['/srv/tools/server.mjs'], [['/srv/tools', '/srv/tools']], []],
    [
      "a package in the home folder's node_modules: that node_modules",
      { args: ['/home/u/p/node_modules/x/i.js'] },
      ['/home/u/p/node_modules/x/i.js'],
      [
        ['/home/u/p/node_modules', '/home/u/p/node_modules'],
        ['/home/u/p/node_modules/x/i.js', '/home/u/p/node_modules/x/i.js'],
      ],
      [['/home/u/p', '/home/u/p']],
    ],
  ])('%s', (_what, entry, paths, bound, notBound) => {
    const args = box(entry, paths);
    for (const b of bound) expect(pairs(args, '--ro-bind')).toContainEqual(b);
    for (const b of notBound) expect(pairs(args, '--ro-bind')).not.toContainEqual(b);
  });

  it('a folder bound on purpose (cwd, read:, write:) hides the own files and folders it holds; an own folder is never bound', () => {
    const args = box(
      {
        args: ['/srv/tools/server.mjs'],
        cwd: '/srv/p',
        sandbox: { read: ['/home/u/.config', '/home/u/.local/state/mcpkit/oauth'], write: ['/srv/p/out'] },
        withheld,
      },
      [
        '/srv/tools/server.mjs',
        '/srv/p/mcpkit.yaml',
        '/srv/p/mcpkit.lock.yaml',
        '/srv/p/notes.md',
        '/srv/p/src/a.ts',
        '/srv/p/out/',
        '/home/u/.config/mcpkit/',
        '/home/u/.config/git/config',
        '/home/u/.local/state/mcpkit/oauth/',
      ],
    );
    // The project folder is bound name by name, without mcpkit's files: an edit's rename cannot bring them back.
    const ro = pairs(args, '--ro-bind');
    expect(ro).toEqual(
      expect.arrayContaining([
        ['/srv/p/notes.md', '/srv/p/notes.md'],
        ['/srv/p/src', '/srv/p/src'],
        ['/home/u/.config', '/home/u/.config'],
      ]),
    );
    expect(pairs(args, '--bind')).toContainEqual(['/srv/p/out', '/srv/p/out']);
    for (const gone of ['/srv/p', '/srv/p/mcpkit.yaml', '/srv/p/mcpkit.lock.yaml', '/home/u/.local/state/mcpkit/oauth'])
      expect(ro.map(([, to]) => to)).not.toContain(gone);
    // An own folder inside a bound one is behind an empty one, mounted after the bind it covers.
    expect(args.join(' ')).toContain('--tmpfs /home/u/.config/mcpkit');
    expect(args.indexOf('/home/u/.config')).toBeLessThan(args.lastIndexOf('/home/u/.config/mcpkit'));
  });

  it('/tmp has a size (64 MiB unless limits.tmp_mb), and limits.processes caps the processes', () => {
    expect(box({}, []).join(' ')).toContain(`--size ${64 * 1024 * 1024} --tmpfs /tmp`);
    expect(box({ limits: { tmp_mb: 8 } }, []).join(' ')).toContain(`--size ${8 * 1024 * 1024} --tmpfs /tmp`);
    expect(limitArgs({ processes: 5 })).toEqual(['--nproc=5']);
  });
});
