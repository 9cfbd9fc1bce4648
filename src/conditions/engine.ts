import { createRequire } from 'node:module';
import type { Environment } from '@marcbachmann/cel-js';
import { globMatches, jsonText, linearMatches, under } from './functions.js';

/**
 * The CEL (Common Expression Language) of conditions, on @marcbachmann/cel-js: parsed and
 * type-checked once per config generation, then evaluated per call in microseconds. What an
 * expression sees: `args` (the call's arguments as sent), `tool`, `server`, `view`, `client`,
 * `claims`, and mcpkit's functions `under`, `glob`, `json`; `matches` runs on RE2 (linear time).
 */

/** The variables a condition is evaluated with. */
export interface ConditionVariables {
  args: Record<string, unknown>;
  tool: string;
  server: string;
  view: string;
  client: string;
  claims: Record<string, unknown>;
}

export type CompiledExpression = (variables: ConditionVariables) => unknown;

/** A compiled expression, or what is wrong with it: the message's first line and its 1-based column. */
export type Compiled = { ok: true; evaluate: CompiledExpression } | { ok: false; column: number; message: string };

let environment: Environment | undefined;

/**
 * cel-js is loaded on first use, from node_modules: only a config with conditions pays for it
 * (registering its functions took 100-200 ms of every command's start on this machine, bundled).
 * A require of an ES module: Node 20.19 and later, which cel-js needs anyway.
 */
function celJs(): typeof import('@marcbachmann/cel-js') {
  return createRequire(import.meta.url)('@marcbachmann/cel-js') as typeof import('@marcbachmann/cel-js');
}

function celEnvironment(): Environment {
  if (environment) return environment;
  const env = new (celJs().Environment)({ unlistedVariablesAreDyn: false, limits: { maxAstNodes: 2000, maxDepth: 64 } });
  env.registerVariable('args', 'map<string, dyn>');
  for (const name of ['tool', 'server', 'view', 'client']) env.registerVariable(name, 'string');
  env.registerVariable('claims', 'map<string, dyn>');
  env.registerFunction('under(string, string): bool', (path: string, root: string) => under(path, root));
  env.registerFunction('under(string, list<string>): bool', (path: string, roots: string[]) => under(path, roots));
  env.registerFunction('glob(string, string): bool', (text: string, pattern: string) => globMatches(text, pattern));
  env.registerFunction('json(dyn): string', (value: unknown) => jsonText(value));
  return (environment = env);
}

/** Parses and type-checks an expression: it must be true or false (or dyn, decided per call). */
export function compileExpression(source: string): Compiled {
  const env = celEnvironment();
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = env.parse(source);
  } catch (error) {
    return refusal(error);
  }
  const checked = parsed.check();
  if (!checked.valid) return refusal(checked.error);
  if (checked.type !== 'bool' && checked.type !== 'dyn')
    return { ok: false, column: 1, message: `the expression gives ${checked.type ?? 'a value'}, not true or false` };
  linearMatchesIn(parsed.ast);
  return { ok: true, evaluate: (variables) => parsed(variables as unknown as Record<string, unknown>) };
}

function refusal(error: unknown): Compiled {
  const err = error as { message?: string; range?: { start: number } };
  const message = String(err?.message ?? error).split('\n', 1)[0]!;
  return { ok: false, column: (err?.range?.start ?? 0) + 1, message };
}

interface AstNode {
  op: string;
  args: unknown;
  handle?: unknown;
}

/**
 * cel-js runs `matches` on JavaScript's RegExp, which backtracks: a pattern like `(a+)+$` on a
 * client's argument would hold the event loop. Its registry refuses a second `matches`, so each
 * checked call of it is pointed at RE2 here instead (test/conditions/engine.test.ts proves it is).
 */
function linearMatchesIn(node: unknown): void {
  if (!isNode(node)) {
    if (Array.isArray(node)) for (const item of node) linearMatchesIn(item);
    return;
  }
  const args = node.args as unknown[];
  if (node.op === 'rcall' && args[0] === 'matches') node.handle = (values: unknown[]) => linearMatchesOf(values[0], values[1]);
  if (Array.isArray(node.args)) for (const child of node.args) linearMatchesIn(child);
}

function linearMatchesOf(text: unknown, pattern: unknown): boolean {
  if (typeof text !== 'string' || typeof pattern !== 'string') throw new Error('matches() takes a string and a pattern');
  return linearMatches(text, pattern);
}

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as AstNode).op === 'string';
}
