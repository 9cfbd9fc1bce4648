import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { FIXTURE_SERVERS, writeConfig } from '../helpers/upstreams.js';
import { nameArguments, nameFlags } from '../../src/cli/completion-names.js';

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

const bash = ['/usr/bin/bash', '/bin/bash'].find((p) => existsSync(p));
describe.skipIf(!bash)('bash completion, as mcpkit autocomplete sets it up', () => {
  it("completes the config's servers, views, clients and tools at their arguments", async () => {
    const file = writeConfig({
      mcp_servers: { alpha: { command: 'x' }, beta: { url: 'https://b.example/mcp', headers: { A: '${UNSET_IN_THIS_SHELL}' } } },
      tool_views: { research: { servers: ['alpha'] } },
      serve: { clients: { alice: { token_sha256: 'a'.repeat(64) } } },
      retrieve: { roots: { docs: '.' } },
    });
    const cache = tempDir('mcpkit-completion-');
    const bin = join(tempDir('mcpkit-completion-bin-'), 'mcpkit');
    symlinkSync(BIN, bin);
    const env = cleanEnv({ XDG_CACHE_HOME: cache, PATH: `${dirname(bin)}:${process.env.PATH}` });
    const made = await runCli(['autocomplete', 'bash'], { env });
    expect(made.code, made.stderr).toBe(0);
    const functions = join(cache, 'mcpkit/autocomplete/functions/bash/mcpkit.bash');
    expect(readFileSync(functions, 'utf8')).toContain('_mcpkit_names_autocomplete');
    // Run again: the wrapper is there once.
    await runCli(['autocomplete', 'bash'], { env });
    expect(readFileSync(functions, 'utf8').match(/complete -F _mcpkit_names_autocomplete/g)).toHaveLength(1);
    const complete = (words: string[]) => {
      const script = `source ${JSON.stringify(functions)}; COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _mcpkit_names_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = spawnSync(bash!, ['-c', script], { env, encoding: 'utf8', cwd: dirname(file) });
      return r.stdout.split('\n').filter(Boolean).sort();
    };
    expect(complete(['mcpkit', 'server', 'show', ''])).toEqual(['alpha', 'beta']);
    expect(complete(['mcpkit', 'server', 'show', 'b'])).toEqual(['beta']);
    expect(complete(['mcpkit', 'view', 'add-server', 'research', ''])).toEqual(['alpha', 'beta']);
    expect(complete(['mcpkit', 'view', 'show', ''])).toEqual(['research']);
    expect(complete(['mcpkit', 'clients', 'rotate', ''])).toEqual(['alice']);
    expect(complete(['mcpkit', 'call', 'config_p'])).toEqual(['config_path']);
    expect(complete(['mcpkit', 'server', 'add', ''])).toEqual([]); // a new name: nothing offered
    // Each command word once (oclif's list has "server" once per server command).
    expect(complete(['mcpkit', 'ser'])).toEqual(['serve', 'server']);
    // A flag that takes a name of the config, or one of a list.
    expect(complete(['mcpkit', 'code', 'run', '--view', ''])).toEqual(['research']);
    expect(complete(['mcpkit', 'serve', '--view', 'r'])).toEqual(['research']);
    expect(complete(['mcpkit', 'clients', '--who', ''])).toEqual(['alice']);
    expect(complete(['mcpkit', 'retrieve', 'search', 'x', '--repo', ''])).toEqual(['docs']);
    expect(complete(['mcpkit', 'view', 'install', 'research', '--client', ''])).toEqual(['claude', 'claude-code', 'cursor', 'mcporter', 'vscode']);
    expect(complete(['mcpkit', 'view', 'install', 'research', '--client', 'cu'])).toEqual(['cursor']);
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
    const file = writeConfig({ mcp_servers: { only: { command: process.execPath, args: [FIXTURE_SERVERS.fileTools, tools] } }, pinning: 'off' });
    const cache = tempDir('mcpkit-completion-');
    const bin = join(tempDir('mcpkit-completion-bin-'), 'mcpkit');
    symlinkSync(BIN, bin);
    const env = cleanEnv({ XDG_CACHE_HOME: cache, PATH: `${dirname(bin)}:${process.env.PATH}`, MCPKIT_NO_DAEMON: '1' });
    expect((await runCli(['autocomplete', 'bash'], { env })).code).toBe(0);
    expect((await runCli(['tools', '--config', file], { env })).stdout).toContain('plain_tool'); // the listing is kept
    const functions = join(cache, 'mcpkit/autocomplete/functions/bash/mcpkit.bash');
    const script = `source ${JSON.stringify(functions)}; COMP_WORDS=(mcpkit call --config ${JSON.stringify(file)} ''); COMP_CWORD=4; _mcpkit_names_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const offered = spawnSync(bash!, ['-c', script], { env, encoding: 'utf8', cwd: dir }).stdout;
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
    const cache = tempDir('mcpkit-completion-zsh-');
    const bin = join(tempDir('mcpkit-completion-bin-'), 'mcpkit');
    symlinkSync(BIN, bin);
    const env = cleanEnv({ XDG_CACHE_HOME: cache, PATH: `${dirname(bin)}:${process.env.PATH}` });
    expect((await runCli(['autocomplete', 'zsh'], { env })).code).toBe(0);
    const setup = join(cache, 'mcpkit/autocomplete/zsh_setup');
    const wrapper = readFileSync(setup, 'utf8');
    expect(wrapper).toContain('compdef _mcpkit_names mcpkit');
    // zsh's completion builtins stand in outside a completion: compadd prints what it is given, oclif's _mcpkit says it ran.
    const complete = (words: string[]) => {
      const body = wrapper.slice(wrapper.indexOf('# mcpkit:'));
      const script = `compdef() {}; compadd() { shift; print -l -- "$@" }; _mcpkit() { print oclif }
${body}
words=(${words.map((w) => JSON.stringify(w)).join(' ')}); CURRENT=${words.length}; _mcpkit_names`;
      const r = spawnSync(zsh!, ['-f', '-c', script], { env, encoding: 'utf8', cwd: dirname(file) });
      return r.stdout.split('\n').filter(Boolean).sort();
    };
    expect(complete(['mcpkit', 'server', 'show', ''])).toEqual(['alpha', 'beta']);
    expect(complete(['mcpkit', 'view', 'add-server', 'research', ''])).toEqual(['alpha', 'beta']);
    expect(complete(['mcpkit', 'view', 'tools', ''])).toEqual(['research']);
    expect(complete(['mcpkit', 'server', ''])).toEqual(['oclif']);
    expect(complete(['mcpkit', 'server', 'show', '--json'])).toEqual(['oclif']);
    expect(complete(['mcpkit', 'code', 'run', '--view', ''])).toEqual(['research']);
    expect(complete(['mcpkit', 'view', 'install', 'research', '--client', ''])).toEqual(['claude', 'claude-code', 'cursor', 'mcporter', 'vscode']);
  }, 60_000);
});
