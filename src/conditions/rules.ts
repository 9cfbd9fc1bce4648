import { ToolError } from '../core/errors.js';
import { compileExpression, type CompiledExpression, type ConditionVariables } from './engine.js';
import { nameGlob } from './functions.js';

/** A condition as written: an expression, or `{ when, message }`. */
export type ConditionSpec = string | { when: string; message?: string | undefined };

/** One compiled condition, and where it is written, to name it when it refuses a call. */
export interface ConditionRule {
  /** `tool_views.NAME.conditions` or `serve.clients.NAME.conditions`. */
  readonly where: string;
  /** Its key: the glob over published tool names. */
  readonly key: string;
  readonly when: string;
  readonly message?: string;
  readonly evaluate: CompiledExpression;
}

const NONE: readonly ConditionRule[] = Object.freeze([]);
/** Most tool names whose rules a set remembers (the catalog's names, in practice). */
const MAX_REMEMBERED = 10_000;

/**
 * The conditions of one view or one client, compiled once per config generation. Which apply to
 * a tool is decided once per published name and remembered, so a call of a tool no condition
 * names costs one map look-up.
 */
export class ConditionSet {
  private readonly byTool = new Map<string, readonly ConditionRule[]>();
  private readonly globs: { test: (name: string) => boolean; rule: ConditionRule }[];

  private constructor(readonly rules: readonly ConditionRule[]) {
    this.globs = rules.map((rule) => ({ test: nameGlob(rule.key), rule }));
  }

  /** The set of `conditions` at `where`; undefined when there are none. Throws for an expression the config check would have refused. */
  static compile(where: string, specs: Readonly<Record<string, ConditionSpec>> | undefined): ConditionSet | undefined {
    const entries = Object.entries(specs ?? {});
    if (entries.length === 0) return undefined;
    const rules = entries.map(([key, spec]): ConditionRule => {
      const { when, message } = typeof spec === 'string' ? { when: spec, message: undefined } : spec;
      const compiled = compileExpression(when);
      if (!compiled.ok) throw new ToolError('CONFIG_INVALID', `${where}.${key}: column ${compiled.column}: ${compiled.message}`);
      return { where, key, when, ...(message !== undefined ? { message } : {}), evaluate: compiled.evaluate };
    });
    return new ConditionSet(rules);
  }

  /** The rules whose glob matches the tool's published name, in the order written. */
  applying(tool: string): readonly ConditionRule[] {
    let found = this.byTool.get(tool);
    if (found) return found;
    const matching = this.globs.filter((g) => g.test(tool)).map((g) => g.rule);
    found = matching.length ? matching : NONE;
    if (this.byTool.size < MAX_REMEMBERED) this.byTool.set(tool, found);
    return found;
  }
}

/** Why a rule refused: it was false (or not a boolean), or it could not be evaluated (a missing argument, another type). */
export interface Refusal {
  rule: ConditionRule;
  why: 'false' | 'error';
}

/** The first rule that does not hold for these variables, or undefined when all hold. Only `true` lets a call through. */
export function firstRefusal(rules: readonly ConditionRule[], variables: ConditionVariables): Refusal | undefined {
  for (const rule of rules) {
    let value: unknown;
    try {
      value = rule.evaluate(variables);
    } catch {
      return { rule, why: 'error' };
    }
    if (value !== true) return { rule, why: 'false' };
  }
  return undefined;
}

/**
 * The error a refused call answers with: where the condition is written, its key, and its
 * message (else its expression). Never the arguments, nor the evaluation's own words, which may
 * quote them.
 */
export function conditionFailed(tool: string, refusal: Refusal): ToolError {
  const { rule, why } = refusal;
  const said = rule.message ?? `it requires ${rule.when}`;
  const how = why === 'error' ? ' (it could not be evaluated on these arguments: one is missing or of another type)' : '';
  return new ToolError('CONDITION_FAILED', `The call of ${tool} was refused by the condition "${rule.key}" of ${rule.where}${how}: ${said}`, {
    details: { tool, condition: { where: rule.where, key: rule.key, ...(rule.message ? { message: rule.message } : { when: rule.when }) } },
    hint: 'Call it again with arguments that meet the condition; the describe tool shows the conditions that apply.',
  });
}

/** What a condition says to whom it applies: its message, else its expression. */
export function conditionText(rule: ConditionRule): string {
  return rule.message ?? rule.when;
}
