import { AsyncLocalStorage } from 'node:async_hooks';
import { ToolError } from '../core/errors.js';
import { processShared } from '../core/process-shared.js';

/**
 * A script cannot start a run. Each run has its own max_calls and max_parallel, so a run that
 * starts runs multiplies them (depth 3, fan-out 8: 512 runs from one 400-byte call). Two checks,
 * each at the one place its path crosses:
 *
 * - every inner call of a script passes the sandbox's host (./sandbox.ts), which refuses a call
 *   whose name is a run's, by any spelling (`namesARun`), or a meta-tool's call that names one;
 * - every run starts in `runCode` (./sandbox.ts), which refuses to start inside an inner call of
 *   a script (`insideAScript`), whatever path the call took to get there (a composite, a hook, a
 *   name no check above foresaw): fail closed.
 */

/** A name as a spelling trick would hide it: compatibility forms folded, case and every separator dropped. */
const bare = (name: string) =>
  name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

/**
 * Whether a tool's name is a run's: a view's `VIEW_run_code`, mcpkit's own `code_run`, an
 * upstream gateway's, in any case and with any separators (`MCPKIT-Run.Code`, `runCode`). An
 * upstream tool that runs code elsewhere under such a name is refused in a script too: its
 * runs are not this serve's to count. Pure.
 */
export function namesARun(name: string): boolean {
  const folded = bare(name);
  return folded.endsWith('runcode') || folded.endsWith('coderun');
}

/** Whether a script's call would start a run: by its name, or a meta-tool's call (`VIEW_call_tool`) naming one. Pure. */
export function startsARun(name: string, args: Record<string, unknown>): boolean {
  if (namesARun(name)) return true;
  return bare(name).endsWith('calltool') && typeof args.name === 'string' && namesARun(args.name);
}

/** The refusal of a run a script asked for: by the name it called, or by where its call led. */
export function nestedRunRefused(name?: string): ToolError {
  const what = name === undefined ? 'this call leads to one' : `"${name}" runs code`;
  return new ToolError('FORBIDDEN', `A script cannot start a run: ${what}, and a run inside a run would multiply its limits.`, {
    ...(name === undefined ? {} : { details: { tool: name } }),
    hint: 'Call the tools that script would call from this script itself (Promise.all runs them in parallel).',
  });
}

// One for the process, whichever copy of this module asks (core/process-shared.ts): a script one
// copy runs could reach another copy's runCode, and a store of each copy's own would let that run start.
const inScript = processShared('insideAScript', () => new AsyncLocalStorage<true>());

/** Runs one inner call of a script: whatever it leads to knows it is inside a script. */
export function asScriptCall<T>(call: () => T): T {
  return inScript.run(true, call);
}

/** Whether the current work is an inner call of a script (or was started by one). */
export function insideAScript(): boolean {
  return inScript.getStore() === true;
}

/**
 * A composite's step runner that, inside a script, refuses a step that would start a run (an
 * upstream gateway's run tool): a composite's name says nothing of its steps.
 */
export function refusingRuns<R>(run: (tool: string, args: Record<string, unknown>) => Promise<R>): (tool: string, args: Record<string, unknown>) => Promise<R> {
  return (tool, args) => (insideAScript() && startsARun(tool, args) ? Promise.reject(nestedRunRefused(tool)) : run(tool, args));
}
