/**
 * One value for the whole process, whichever copy of a module asks for it. The daemon runs from
 * its script form (one bundle, `dist/cli/daemon-server.script.cjs`) and runs the lines a client
 * hands it whole through oclif, which imports the commands of the split ES build: a second copy
 * of every module they use. State that is the process's by nature (the command a call runs for,
 * the secrets to mask, whether work runs inside a script, the search workers' bound) must be one
 * for both copies, or a line run through oclif would not see the daemon's scope and would ask the
 * daemon again, print a secret unmasked, or start a run inside a run. So it is kept on
 * globalThis under a registered symbol (`Symbol.for`), made by the first copy that asks; every
 * copy is of the same build (the daemon refuses another build's clients).
 */
export function processShared<T>(name: string, make: () => T): T {
  const key = Symbol.for(`mcpkit.${name}`);
  const holder = globalThis as unknown as Record<symbol, T | undefined>;
  return (holder[key] ??= make());
}
