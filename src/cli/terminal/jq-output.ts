import { ToolError } from '../../core/errors.js';

/**
 * `--jq EXPR` on any command with `--json`, as gh has it: the JSON the command would print, put
 * through a jq expression; a string result prints raw, anything else as JSON (indented in a
 * terminal, one line each otherwise). The language is jq's own: jq-web, jq compiled to
 * WebAssembly. Measured against the others here: jq-wasm feeds its input one byte at a time with a
 * copy per byte (116 KB took 6.9 s, 584 KB 124 s), and @jq-tools/jq lacks much of jq (ascii_downcase,
 * getpath, tostream, env: 7 of 19 probes failed); jq-web reads its input from a file in memory
 * (linear: 2.3 MB in about 0.5 s) and answers synchronously once loaded (about 60-180 ms, paid only
 * when --jq is given).
 */
export interface JqRunner {
  raw(json: string, filter: string, flags: string[]): string;
}

let loading: Promise<JqRunner> | undefined;

/** jq, loaded once per process (the daemon keeps it). */
export function loadJq(): Promise<JqRunner> {
  return (loading ??= import('node:module').then(({ createRequire }) => createRequire(import.meta.url)('jq-web') as Promise<JqRunner>));
}

/** The expression after `--jq` (or in `--jq=`), before any `--`; undefined without one. Pure. */
export function jqExpression(argv: readonly string[]): string | undefined {
  const end = argv.indexOf('--');
  const flags = end < 0 ? argv : argv.slice(0, end);
  for (let i = 0; i < flags.length; i++) {
    if (flags[i] === '--jq') return flags[i + 1] ?? '';
    if (flags[i]!.startsWith('--jq=')) return flags[i]!.slice('--jq='.length);
  }
  return undefined;
}

/**
 * The text to print: each result of `expression` over `value` on its own line. jq's compile errors
 * (exit 3) are bad usage; an error while running (exit 5, e.g. indexing an object with a number)
 * is the expression's, not mcpkit's: both are INVALID_INPUT with jq's own words.
 */
export function jqText(jq: JqRunner, expression: string, value: unknown, pretty: boolean): string {
  if (expression.trim() === '') throw new ToolError('INVALID_INPUT', '--jq needs an expression.', { hint: "For example --jq '.[] | .name'." });
  try {
    const out = jq.raw(JSON.stringify(value ?? null), expression, ['-r', '-M', ...(pretty ? [] : ['-c'])]);
    return out === undefined || out === '' ? '' : out.endsWith('\n') ? out : `${out}\n`;
  } catch (error) {
    const { stderr, exitCode } = error as { stderr?: string; exitCode?: number };
    const words = (stderr ?? (error as Error).message ?? '').replace(/^jq: error(?: \(at [^)]*\))?: /, '').replace(/\njq: \d+ compile errors?$/, '');
    throw new ToolError('INVALID_INPUT', `--jq ${exitCode === 3 ? 'is not a jq expression' : 'failed'}: ${words.trim()}`, {
      hint: exitCode === 3 ? "Quote the expression for the shell, e.g. --jq '.[] | .name'." : 'Look at the JSON with --json first, then narrow it.',
      details: { exit: exitCode ?? null },
    });
  }
}
