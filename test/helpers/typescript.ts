import { createRequire } from 'node:module';
import type * as TypeScript from 'typescript';

/**
 * The TypeScript compiler's API (5.9, the `typescript` package) for the tests that parse source:
 * loaded by require, not import. Imported, Node reads its 9 MB CommonJS file three times (a check
 * for ES module syntax, the lexer that finds its exports, then the compile): 1.3 CPU-s against 0.4
 * required, measured here, in each worker that loads it.
 */
export const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;
export type { TypeScript };
