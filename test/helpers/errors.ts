import type { ToolError } from '../../src/core/errors.js';

/** The code of the ToolError a function throws, or undefined when it does not throw. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as ToolError).code;
  }
  return undefined;
}
