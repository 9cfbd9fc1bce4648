import { locateConfig } from '../config/locate.js';
import { parseCompleteNamesArgs } from './complete-names-args.js';
import { completionNames } from './config-names.js';

/**
 * Each tab press at a name runs `mcpkit complete-names KIND` (completion-names.ts) while a user
 * waits: a plain line skips oclif's start-up and prints what the command prints (config-names.ts).
 * Returns false to let oclif run the line: one that is not plain, and one whose names could not
 * be read, so that its error is oclif's as it always was (nothing is printed before that).
 */
export async function fastCompleteNames(argv: readonly string[]): Promise<boolean> {
  const args = parseCompleteNamesArgs(argv);
  if (!args) return false;
  let names: string[];
  try {
    // The config a runtime of this line would serve (app/runtime.ts); the runtime itself, with all it
    // loads, only for the kind that needs one (tools).
    const location = locateConfig({ flag: args.config, env: process.env, cwd: process.cwd() });
    const runtime = async () => {
      const [{ createRuntime }, { sayWaiting }] = await Promise.all([import('../app/runtime.js'), import('./terminal/output.js')]);
      return createRuntime({ configFlag: args.config, surface: 'cli', waiting: sayWaiting });
    };
    names = await completionNames(location, args.kind, runtime);
  } catch {
    return false;
  }
  process.stdout.write(names.map((name) => `${name}\n`).join(''));
  return true;
}
