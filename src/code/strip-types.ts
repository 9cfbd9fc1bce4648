import { transform } from 'sucrase';
import { ToolError } from '../core/errors.js';

/**
 * A script as the engine runs it: TypeScript's types stripped (sucrase: it removes them, and
 * checks nothing), JavaScript left as it is. The script is the body of an async function, so it
 * may `await` and `return` at its top level; it is wrapped for the parser and unwrapped after.
 */
const OPEN = 'async function __mcpkit_script() {\n';
const CLOSE = '\n}';

export function toJavaScript(code: string): string {
  let out: string;
  try {
    out = transform(`${OPEN}${code}${CLOSE}`, { transforms: ['typescript'], disableESTransforms: true, keepUnusedImports: true }).code;
  } catch (error) {
    const message = (error as Error).message.replace(/\((\d+):(\d+)\)/, (_all, line: string, column: string) => `(line ${Number(line) - 1}, column ${column})`);
    throw new ToolError('SCRIPT_ERROR', `The script does not parse: ${message}.`, {
      hint: 'The script is the body of an async function: it may await and return.',
    });
  }
  const start = out.indexOf(OPEN.trimEnd());
  const end = out.lastIndexOf('}');
  if (start < 0 || end < 0) return code;
  return out.slice(start + OPEN.trimEnd().length, end).replace(/^\n/, '');
}
