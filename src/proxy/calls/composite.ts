import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CompositeConfig } from '../../config/schema/schema.js';
import { refusingRuns } from '../../code/nested-runs.js';
import { renderTemplate } from './template.js';

/**
 * Composite tools: `parallel` steps run at once and a failing step yields
 * `{ step: { error } }` without failing the others; `chain` steps run in order, each able to use
 * the inputs and earlier results, and the chain stops at the first failure. The step runner is
 * passed in, so this file is pure orchestration.
 */
export type CompositeSpec = CompositeConfig;
type CompositeStep = NonNullable<CompositeConfig['chain']>[number];

export type StepOutcome = { result: unknown } | { error: string };
export type RunStep = (tool: string, args: Record<string, unknown>) => Promise<CallToolResult>;

/** What later steps and the caller see of a tool result: structured content, else JSON text, else text. */
export function stepValue(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const texts = (result.content ?? []).filter((c) => c.type === 'text').map((c) => (c as { text: string }).text);
  const text = texts.join('\n');
  try {
    return texts.length === 1 ? JSON.parse(text) : text;
  } catch {
    return text;
  }
}

function errorText(result: CallToolResult): string {
  const value = stepValue(result);
  if (value && typeof value === 'object' && 'error' in value) {
    const error = (value as { error: unknown }).error;
    return typeof error === 'object' && error && 'message' in error ? String((error as { message: unknown }).message) : String(error);
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

async function runOne(step: CompositeStep, scope: Record<string, unknown>, run: RunStep): Promise<StepOutcome> {
  try {
    const args = renderTemplate(step.args ?? {}, scope) as Record<string, unknown>;
    const result = await run(step.tool, args);
    return result.isError ? { error: errorText(result) } : { result: stepValue(result) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

export async function runComposite(
  spec: CompositeSpec,
  inputs: Record<string, unknown>,
  runStep: RunStep,
): Promise<{ failed: boolean; output: Record<string, unknown> }> {
  // Inside a code-mode script, no step starts a run (code/nested-runs.ts).
  const run = refusingRuns(runStep);
  if (spec.parallel) {
    const names = Object.keys(spec.parallel);
    const outcomes = await Promise.all(names.map((name) => runOne(spec.parallel![name]!, { inputs }, run)));
    return { failed: false, output: Object.fromEntries(names.map((name, i) => [name, outcomes[i]])) };
  }
  const steps: Record<string, StepOutcome> = {};
  let last: unknown;
  for (const [index, step] of (spec.chain ?? []).entries()) {
    const name = step.name ?? `step${index + 1}`;
    const outcome = await runOne(step, { inputs, steps }, run);
    steps[name] = outcome;
    if ('error' in outcome) return { failed: true, output: { steps, failed_step: name, error: outcome.error } };
    last = outcome.result;
  }
  return { failed: false, output: { steps, result: last } };
}
