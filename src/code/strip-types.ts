import { transform } from 'sucrase';
import { ToolError } from '../core/errors.js';
import { decodeMappings, sourcePlace } from './source-map.js';

/**
 * A script as the engine runs it: TypeScript's types stripped (sucrase: it removes them, and
 * checks nothing), JavaScript left as it is. The script is the body of an async function, so it
 * may `await` and `return` at its top level; it is wrapped for the parser and unwrapped after.
 * Lines stay where they were; columns move where types were removed, so the source map says
 * where a place of the engine's JavaScript was in the script as written.
 */
const OPEN = 'async function __mcpkit_script() {\n';
const CLOSE = '\n}';

export interface StrippedScript {
  js: string;
  /** The place in the script as written (1-based) of a place in `js` (1-based); undefined outside the script. */
  placeOf(line: number, column: number): { line: number; column: number } | undefined;
}

export function toJavaScript(code: string): StrippedScript {
  let out: { code: string; sourceMap?: { mappings: string } };
  try {
    out = transform(`${OPEN}${code}${CLOSE}`, {
      transforms: ['typescript'],
      disableESTransforms: true,
      keepUnusedImports: true,
      filePath: 'script.ts',
      sourceMapOptions: { compiledFilename: 'script.js' },
    });
  } catch (error) {
    const message = (error as Error).message.replace(/\((\d+):(\d+)\)/, (_all, line: string, column: string) => `(line ${Number(line) - 1}, column ${column})`);
    throw new ToolError('SCRIPT_ERROR', `The script does not parse: ${message}.`, {
      hint: 'The script is the body of an async function: it may await and return.',
    });
  }
  const lines = code.split('\n').length;
  const start = out.code.indexOf(OPEN.trimEnd());
  const end = out.code.lastIndexOf('}');
  if (start < 0 || end < 0) return { js: code, placeOf: (line, column) => (line >= 1 && line <= lines ? { line, column } : undefined) };
  const segments = decodeMappings(out.sourceMap?.mappings ?? '');
  return {
    js: out.code.slice(start + OPEN.trimEnd().length, end).replace(/^\n/, ''),
    // Line N of js is line N of the wrapped text (0-based, after OPEN's), and of the script.
    placeOf(line, column) {
      if (line < 1 || line > lines) return undefined;
      const place = sourcePlace(segments, line, column - 1);
      return { line, column: (place?.line === line ? place.column : column - 1) + 1 };
    },
  };
}
