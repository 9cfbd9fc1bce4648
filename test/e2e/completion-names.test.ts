import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCommand, spawnTracked, tempDir } from '../helpers/cli.js';
import { runLinesInOneProcess } from '../helpers/oclif-lines.js';
import { fileTools, writeConfig } from '../helpers/upstreams.js';
import { nameArguments, nameFlags } from '../../src/cli/completion-names.js';

/** What a shell prints on stdout running `args` (a completion: each asks mcpkit, a process, for names). */
function shellStdout(shell: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawnTracked(shell, args, { ...options, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('close', () => resolve(out));
  });
}

/** Ends each completion's output in a shell that runs several: no name offered is ever this (SAFE_NAME, config-names.ts). */
const END = '@@ end of a completion @@';

/**
 * Each completion's words and what it must offer, checked in order: every completion in ONE shell,
 * as a user's shell runs one tab press after another, set up once (`setUp`: the functions sourced or
 * defined), not a shell each. `complete` is the shell text of one tab press; it starts from no
 * reply of an earlier one, and each asks mcpkit, a process, for names as it would.
 */
async function expectCompletions(
  run: (script: string) => Promise<string>,
  setUp: string,
  complete: (words: string[]) => string,
  cases: [string[], string[]][],
): Promise<void> {
  const script = [setUp, ...cases.map(([words]) => `${complete(words)}\nprintf '%s\\n' ${JSON.stringify(END)}`)].join('\n');
  const out = (await run(script)).split('\n');
  // A shell that stopped part-way must not pass the completions it never ran.
  expect(
    out.filter((line) => line === END),
    out.join('\n'),
  ).toHaveLength(cases.length);
  const offered = cases.map(() =>
    out
      .splice(0, out.indexOf(END) + 1)
      .slice(0, -1)
      .filter(Boolean)
      .sort(),
  );
  cases.forEach(([words, want], i) => expect(offered[i], words.join(' ')).toEqual(want));
}

/** Tab completion offers the config's names where a command takes one, through oclif's own scripts. */

describe('which arguments take a name', () => {
  it.each<[string, string[], { position: number; kind: string }[]]>([
    ['server:show', ['name'], [{ position: 1, kind: 'servers' }]],
    ['server:add', ['name'], []], // a new name
    [
      'view:add-server',
      ['view', 'server'],
      [
        { position: 1, kind: 'views' },
        { position: 2, kind: 'servers' },
      ],
    ],
    ['call', ['tool'], [{ position: 1, kind: 'tools' }]],
    ['clients:rotate', ['name'], [{ position: 1, kind: 'clients' }]],
    ['clients:add', ['name'], []],
    ['composite:show', ['name'], [{ position: 1, kind: 'composites' }]],
    ['retrieve:cat', ['path'], []],
  ])('%s', (id, args, want) => {
    expect(nameArguments([{ id, args }]).map(({ position, kind }) => ({ position, kind }))).toEqual(want);
  });
});

describe('which flags take a name, or one of a list', () => {
  it.each<[string, Record<string, { options?: string[] }>, { flag: string; kind?: string; options?: string[] }[]]>([
    ['serve', { view: {}, port: {} }, [{ flag: 'view', kind: 'views' }]],
    ['clients', { who: {}, tool: {} }, [{ flag: 'who', kind: 'clients' }]],
    ['retrieve:search', { repo: {} }, [{ flag: 'repo', kind: 'roots' }]],
    ['server:login', { as: {} }, [{ flag: 'as', kind: 'clients' }]],
    ['registry:add', { as: {} }, []], // a new server's name
    ['view:install', { client: { options: ['claude', 'cursor'] } }, [{ flag: 'client', options: ['claude', 'cursor'] }]],
    ['x', { mode: { options: ['a', '$(touch y)'] } }, [{ flag: 'mode', options: ['a'] }]], // only words a shell offers as they are
  ])('%s', (id, flags, want) => {
    expect(nameFlags([{ id, flags }]).map(({ words: _, ...rest }) => rest)).toEqual(want);
  });
});

/**
 * One `mcpkit autocomplete` set-up for the file's tests, in one process (helpers/oclif-lines.ts:
 * oclif's dispatch and hooks, as bin/run.js's): bash, bash again (its wrapper must be there once),
 * zsh. What it writes names no config (each completion finds its config then), and each test's
 * shell sources it with its own environment.
 */
let setUp: Promise<{ cache: string; bin: string }> | undefined;
function autocompleteSetUp(): Promise<{ cache: string; bin: string }> {
  return (setUp ??= (async () => {
    const cache = tempDir('mcpkit-completion-');
    const bin = join(tempDir('mcpkit-completion-bin-'), 'mcpkit');
    symlinkSync(BIN, bin);
    const lines = [
      ['autocomplete', 'bash'],
      ['autocomplete', 'bash'],
      ['autocomplete', 'zsh'],
    ];
    const runs = await runLinesInOneProcess(lines, { env: cleanEnv({ XDG_CACHE_HOME: cache, PATH: `${dirname(bin)}:${process.env.PATH}` }) });
    for (const run of runs) expect(run.code, `${run.argv.join(' ')}: ${run.stderr}`).toBe(0);
    return { cache, bin };
  })());
}

const bash = ['/usr/bin/bash', '/bin/bash'].find((p) => existsSync(p));
describe.skipIf(!bash)('bash completion, as mcpkit autocomplete sets it up', () => {
  let cache: string;
  let bin: string;
  let functions: string;
  beforeAll(async () => {
    ({ cache, bin } = await autocompleteSetUp());
    functions = join(cache, 'mcpkit/autocomplete/functions/bash/mcpkit.bash');
  }, 60_000);

  it("completes the config's servers, views, clients and tools at their arguments", async () => {
    const file = writeConfig({
      mcp_servers: { alpha: { command: 'x' }, beta: { url: 'https://b.example/mcp', headers: { A: '${UNSET_IN_THIS_SHELL}' } } },
      tool_views: { research: { servers: ['alpha'] } },
      serve: { clients: { alice: { token_sha256: 'a'.repeat(64) } } },
      retrieve: { roots: { docs: '.' } },
    });
    const env = cleanEnv({ XDG_CACHE_HOME: cache, PATH: `${dirname(bin)}:${process.env.PATH}` });
    // Run again (and zsh's after it): the wrapper is there once.
    expect(readFileSync(functions, 'utf8').match(/complete -F _mcpkit_names_autocomplete/g)).toHaveLength(1);
    const run = (script: string) => shellStdout(bash!, ['-c', script], { env, cwd: dirname(file) });
    const complete = (words: string[]) =>
      `COMPREPLY=(); COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _mcpkit_names_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    await expectCompletions(run, `source ${JSON.stringify(functions)}`, complete, [
      [
        ['mcpkit', 'server', 'show', ''],
        ['alpha', 'beta'],
      ],
      [['mcpkit', 'server', 'show', 'b'], ['beta']],
      [
        ['mcpkit', 'view', 'add-server', 'research', ''],
        ['alpha', 'beta'],
      ],
      [['mcpkit', 'view', 'show', ''], ['research']],
      [['mcpkit', 'clients', 'rotate', ''], ['alice']],
      [['mcpkit', 'call', 'config_p'], ['config_path']],
      [['mcpkit', 'server', 'add', ''], []], // a new name: nothing offered
      // Each command word once (oclif's list has "server" once per server command).
      [
        ['mcpkit', 'ser'],
        ['serve', 'server'],
      ],
      // A flag that takes a name of the config, or one of a list.
      [['mcpkit', 'code', 'run', '--view', ''], ['research']],
      [['mcpkit', 'serve', '--view', 'r'], ['research']],
      [['mcpkit', 'clients', '--who', ''], ['alice']],
      [['mcpkit', 'retrieve', 'search', 'x', '--repo', ''], ['docs']],
      [
        ['mcpkit', 'view', 'install', 'research', '--client', ''],
        ['claude', 'claude-code', 'cursor', 'mcporter', 'vscode'],
      ],
      [['mcpkit', 'view', 'install', 'research', '--client', 'cu'], ['cursor']],
    ]);
  }, 60_000);

  it("a tool name of an upstream's that a shell would expand is never offered, and nothing of it runs", async () => {
    const dir = dirname(writeConfig({}));
    const marker = join(dir, 'pwned');
    const tools = join(dir, 'tools.json');
    writeFileSync(
      tools,
      JSON.stringify([
        { name: `x$(touch ${marker})`, description: 'a name that is a command', inputSchema: { type: 'object' } },
        { name: 'plain_tool', description: 'an ordinary tool', inputSchema: { type: 'object' } },
      ]),
    );
    const file = writeConfig({ mcp_servers: { only: { ...fileTools(tools) } }, pinning: 'off' });
    const env = cleanEnv({ XDG_CACHE_HOME: cache, PATH: `${dirname(bin)}:${process.env.PATH}`, MCPKIT_NO_DAEMON: '1' });
    expect((await runCommand(['tools', '--config', file], { env })).stdout).toContain('plain_tool'); // the listing is kept
    const script = `source ${JSON.stringify(functions)}; COMP_WORDS=(mcpkit call --config ${JSON.stringify(file)} ''); COMP_CWORD=4; _mcpkit_names_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const offered = await shellStdout(bash!, ['-c', script], { env, cwd: dir });
    expect(offered).toContain('plain_tool');
    // Offered only as a name (published names are sanitized; complete-names offers nothing else), never run.
    expect(
      offered.split('\n').filter((n) => n !== '' && !/^[A-Za-z0-9_./-]+$/.test(n)),
      offered,
    ).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  }, 60_000);
});

const zsh = ['/usr/bin/zsh', '/bin/zsh'].find((p) => existsSync(p));
if (!zsh) console.log('skipped: the zsh wrapper of completion (Debian package "zsh" is not installed)');
describe.skipIf(!zsh)('zsh completion, as mcpkit autocomplete sets it up', () => {
  it("offers the config's names at a name argument and leaves the rest to oclif's function", async () => {
    const file = writeConfig({ mcp_servers: { alpha: { command: 'x' }, beta: { command: 'y' } }, tool_views: { research: { servers: ['alpha'] } } });
    const { cache, bin } = await autocompleteSetUp();
    const env = cleanEnv({ XDG_CACHE_HOME: cache, PATH: `${dirname(bin)}:${process.env.PATH}` });
    const setup = join(cache, 'mcpkit/autocomplete/zsh_setup');
    const wrapper = readFileSync(setup, 'utf8');
    expect(wrapper).toContain('compdef _mcpkit_names mcpkit');
    // zsh's completion builtins stand in outside a completion: compadd prints what it is given, oclif's _mcpkit says it ran.
    const run = (script: string) => shellStdout(zsh!, ['-f', '-c', script], { env, cwd: dirname(file) });
    const setUp = `compdef() {}; compadd() { shift; print -l -- "$@" }; _mcpkit() { print oclif }
${wrapper.slice(wrapper.indexOf('# mcpkit:'))}`;
    const complete = (words: string[]) => `words=(${words.map((w) => JSON.stringify(w)).join(' ')}); CURRENT=${words.length}; _mcpkit_names`;
    await expectCompletions(run, setUp, complete, [
      [
        ['mcpkit', 'server', 'show', ''],
        ['alpha', 'beta'],
      ],
      [
        ['mcpkit', 'view', 'add-server', 'research', ''],
        ['alpha', 'beta'],
      ],
      [['mcpkit', 'view', 'tools', ''], ['research']],
      [['mcpkit', 'server', ''], ['oclif']],
      [['mcpkit', 'server', 'show', '--json'], ['oclif']],
      [['mcpkit', 'code', 'run', '--view', ''], ['research']],
      [
        ['mcpkit', 'view', 'install', 'research', '--client', ''],
        ['claude', 'claude-code', 'cursor', 'mcporter', 'vscode'],
      ],
    ]);
  }, 60_000);
});
