import type { Hook } from '@oclif/core';

/**
 * oclif's postrun hook, for `autocomplete` (and `autocomplete create`): once oclif has written its
 * completion scripts, mcpkit's wrapper is added to them, so that an argument naming a server, view,
 * tool, client or composite tool completes to the config's names (./completion-names.ts). Every
 * other command returns at once.
 */
const hook: Hook.Postrun = async function ({ Command }) {
  if (Command.id !== 'autocomplete' && Command.id !== 'autocomplete:create') return;
  const [{ appendFileSync, existsSync, readFileSync }, { join }, { bashNames, nameArguments, nameFlags, zshNames }] = await Promise.all([
    import('node:fs'),
    import('node:path'),
    import('./completion-names.js'),
  ]);
  const { bin, cacheDir } = this.config;
  const table = nameArguments(this.config.commands.map((c) => ({ id: c.id, args: Object.keys(c.args ?? {}) })));
  const flags = nameFlags(this.config.commands.map((c) => ({ id: c.id, flags: (c.flags ?? {}) as Record<string, { options?: string[] }> })));
  const dir = join(cacheDir, 'autocomplete');
  for (const [file, text] of [
    [join(dir, 'functions', 'bash', `${bin}.bash`), bashNames(bin, table, flags)],
    [join(dir, 'zsh_setup'), zshNames(bin, table, flags)],
  ] as const) {
    // oclif rewrites its files on each run; one already carrying the wrapper is left as it is.
    if (existsSync(file) && !readFileSync(file, 'utf8').includes(`_${bin}_names`)) appendFileSync(file, text);
  }
};

export default hook;
