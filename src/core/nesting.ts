import { ToolError } from './errors.js';

/**
 * How deep a value nests: a tool call's arguments and _meta are held to MAX_NESTING before
 * anything walks them. Every walker on a call's way (the argument validator's compiled schemas for
 * recursive `$ref`s, redaction, the JSON encoders of the transports, the upstream's own parser)
 * recurses; 64 levels are far past any tool's schema (real ones nest under 10) and far below the
 * depth where any of them runs out of stack (a few thousand). Pure.
 */
export const MAX_NESTING = 64;

/**
 * Whether `value` nests more than `limit` objects or arrays deep (the value itself is level 1; a
 * scalar is level 0). Iterative, so no depth overflows it; it stops at the first node past the
 * limit, and visits each node at most once otherwise.
 */
export function nestedDeeperThan(value: unknown, limit: number = MAX_NESTING): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: { node: object; depth: number }[] = [{ node: value, depth: 1 }];
  for (let top = stack.pop(); top; top = stack.pop()) {
    if (top.depth > limit) return true;
    const children = Array.isArray(top.node) ? (top.node as unknown[]) : Object.values(top.node);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push({ node: child, depth: top.depth + 1 });
  }
  return false;
}

/**
 * A tools/call whose arguments or _meta nest past MAX_NESTING: the refusal to answer with, before
 * anything walks them; undefined for a call within the limit. Pure.
 */
export function nestingRefusal(tool: string, args: unknown, meta: unknown): ToolError | undefined {
  const field = nestedDeeperThan(args) ? 'arguments' : nestedDeeperThan(meta) ? '_meta' : undefined;
  if (!field) return undefined;
  return new ToolError('INVALID_INPUT', `The call's ${field} ${field === '_meta' ? 'is' : 'are'} nested deeper than ${MAX_NESTING} levels.`, {
    details: { tool, field, max_depth: MAX_NESTING },
    hint: `Send flatter data: at most ${MAX_NESTING} levels of objects and arrays.`,
  });
}
