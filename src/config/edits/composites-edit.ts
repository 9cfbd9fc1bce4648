import { isMap, type Document } from 'yaml';
import { field, ToolError } from '../../core/errors.js';
import { notFound } from '../../core/suggest.js';
import { mapKeys } from './yaml-nodes.js';

/** Changes to `composite_tools` and `hooks` on a YAML document, for `editConfig`, and a composite built from command-line words. Pure. */

export interface CompositeWords {
  /** `[STEP=]TOOL`, in order: TOOL is `server.tool` (as the server publishes it) or an mcpkit tool. */
  steps: readonly string[];
  parallel: boolean;
  /** `STEP=JSON`: a step's arguments, a JSON object that may use {inputs.x} and {steps.NAME.result...}. */
  args: readonly string[];
  /** `NAME[:TYPE]`: an argument of the composite itself, required. */
  inputs: readonly string[];
  description?: string | undefined;
}

export interface CompositeEntry {
  description?: string;
  inputs?: { type: 'object'; properties: Record<string, { type: string }>; required: string[] };
  parallel?: Record<string, { tool: string; args?: Record<string, unknown> }>;
  chain?: { name?: string; tool: string; args?: Record<string, unknown> }[];
}

const STEP_NAME = /^[A-Za-z0-9_-]+$/;
const INPUT_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'];

/** The entry `composite add` writes, from its flags; INVALID_INPUT naming the word that is wrong. */
export function compositeFromWords(words: CompositeWords): CompositeEntry {
  if (words.steps.length === 0)
    throw invalid('A composite needs at least one step.', 'steps', `Give ${field('steps')} TOOL (repeatable), e.g. ${field('steps')} docs=search.`);
  const steps = words.steps.map((word) => {
    const eq = word.indexOf('=');
    const [name, tool] = eq > 0 ? [word.slice(0, eq), word.slice(eq + 1)] : [stepNameOf(word), word];
    if (!tool) throw invalid(`The step "${word}" names no tool.`, 'steps', 'Write it as [STEP=]TOOL, e.g. docs=search or code=github.search_code.');
    if (!STEP_NAME.test(name)) throw invalid(`The step name "${name}" may hold only letters, digits, "_" and "-".`, 'steps', 'Name it before "=": NAME=TOOL.');
    return { name, tool };
  });
  const names = steps.map((s) => s.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw invalid(`Two steps are named "${twice}".`, 'steps', 'Name each step before "=": NAME=TOOL.');
  const argsOf = new Map<string, Record<string, unknown>>();
  for (const word of words.args) {
    const eq = word.indexOf('=');
    const step = eq > 0 ? word.slice(0, eq) : '';
    if (!names.includes(step)) {
      throw invalid(`--args "${word}" names no step${step ? ` "${step}"` : ''}.`, 'args', `Write it as STEP=JSON, STEP one of: ${names.join(', ')}.`);
    }
    let value: unknown;
    try {
      value = JSON.parse(word.slice(eq + 1));
    } catch (error) {
      throw invalid(`The arguments of step "${step}" are not JSON: ${(error as Error).message}.`, 'args', `e.g. ${step}='{"query":"{inputs.q}"}'.`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid(`The arguments of step "${step}" must be a JSON object.`, 'args');
    if (argsOf.has(step)) throw invalid(`Step "${step}" is given --args twice.`, 'args');
    argsOf.set(step, value as Record<string, unknown>);
  }
  const inputs = words.inputs.map((word) => {
    const [name = '', type = 'string'] = word.split(':');
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw invalid(`"${name}" is not an argument name.`, 'inputs', 'Write it as NAME or NAME:TYPE.');
    if (!INPUT_TYPES.includes(type)) throw invalid(`"${type}" is not a JSON Schema type.`, 'inputs', `Types: ${INPUT_TYPES.join(', ')}.`);
    return { name, type };
  });
  checkReferences(
    words.parallel,
    steps,
    argsOf,
    inputs.map((i) => i.name),
  );
  const entry: CompositeEntry = {};
  if (words.description) entry.description = words.description;
  if (inputs.length) {
    entry.inputs = {
      type: 'object',
      properties: Object.fromEntries(inputs.map((i) => [i.name, { type: i.type }])),
      required: inputs.map((i) => i.name),
    };
  }
  const withArgs = (name: string) => (argsOf.has(name) ? { args: argsOf.get(name)! } : {});
  if (words.parallel) entry.parallel = Object.fromEntries(steps.map((s) => [s.name, { tool: s.tool, ...withArgs(s.name) }]));
  else entry.chain = steps.map((s) => ({ name: s.name, tool: s.tool, ...withArgs(s.name) }));
  return entry;
}

/** A step's default name: the tool's own name after its server (`github.search_code` is search_code). */
function stepNameOf(tool: string): string {
  return (tool.includes('.') ? tool.slice(tool.indexOf('.') + 1) : tool).replace(/[^A-Za-z0-9_-]/g, '_');
}

/** Placeholders name declared inputs (when any are declared) and, in a chain, steps that ran before. */
function checkReferences(
  parallel: boolean,
  steps: readonly { name: string }[],
  argsOf: ReadonlyMap<string, Record<string, unknown>>,
  inputs: readonly string[],
): void {
  steps.forEach((step, index) => {
    const text = JSON.stringify(argsOf.get(step.name) ?? {});
    for (const [, kind, name] of text.matchAll(/\{(inputs|steps)\.([A-Za-z0-9_-]+)/g)) {
      if (kind === 'inputs' && inputs.length && !inputs.includes(name!)) {
        throw invalid(
          `Step "${step.name}" uses {inputs.${name}}, which is not an input.`,
          'args',
          `Inputs: ${inputs.join(', ')} (add one with ${field('inputs')} ${name}).`,
        );
      }
      if (kind === 'steps') {
        const earlier = steps.slice(0, index).map((s) => s.name);
        if (parallel || !earlier.includes(name!)) {
          throw invalid(
            `Step "${step.name}" uses {steps.${name}...}, which ${parallel ? 'parallel steps cannot use' : 'has not run before it'}.`,
            'args',
            parallel ? `Use a chain (leave out ${field('parallel')}) for steps that use each other.` : `Steps before it: ${earlier.join(', ') || 'none'}.`,
          );
        }
      }
    }
  });
}

/** INVALID_INPUT naming the input field of `composite add` at fault. */
function invalid(message: string, inputField: string, hint?: string): ToolError {
  return new ToolError('INVALID_INPUT', message, {
    details: { field: inputField },
    ...(hint ? { hint } : {}),
  });
}

export function setComposite(doc: Document, name: string, entry: CompositeEntry, options: { force: boolean }): { replaced: boolean } {
  const exists = doc.hasIn(['composite_tools', name]);
  if (exists && !options.force) {
    throw new ToolError('CONFLICT', `A composite tool named "${name}" already exists.`, {
      details: { composite: name },
      hint: `Pass ${field('force')} to replace it, or remove it first: mcpkit composite remove ${name}.`,
    });
  }
  if (!isMap(doc.get('composite_tools'))) doc.set('composite_tools', doc.createNode({}));
  doc.setIn(['composite_tools', name], doc.createNode(entry));
  return { replaced: exists };
}

export function removeComposite(doc: Document, name: string): void {
  if (!doc.hasIn(['composite_tools', name])) {
    throw notFound('composite tool', name, mapKeys(doc.get('composite_tools')), '"mcpkit composite list" shows them.');
  }
  // A view that names it in `tools` would no longer load (config validate, serve): said, not broken.
  const naming = mapKeys(doc.get('tool_views')).filter((view) => {
    const tools = doc.getIn(['tool_views', view, 'tools']) as { toJSON?: () => unknown } | undefined;
    const list = tools?.toJSON?.();
    return Array.isArray(list) && list.includes(name);
  });
  if (naming.length) {
    throw new ToolError(
      'CONFLICT',
      `The view${naming.length === 1 ? '' : 's'} ${naming.join(', ')} name${naming.length === 1 ? 's' : ''} the composite tool "${name}" in tools.`,
      {
        details: { composite: name, views: naming },
        hint: `Take it out of tool_views.${naming[0]}.tools first.`,
      },
    );
  }
  doc.deleteIn(['composite_tools', name]);
  if (mapKeys(doc.get('composite_tools')).length === 0) doc.delete('composite_tools');
}

export type HookName = 'pre_call' | 'post_call';

/**
 * Sets or clears hook modules, globally (`view` undefined) or for one view; `null` clears one.
 * An emptied `hooks` map is removed. Returns what the hooks were before.
 */
export function setHooks(doc: Document, view: string | undefined, change: Partial<Record<HookName, string | null>>): Partial<Record<HookName, string>> {
  if (view !== undefined && !isMap(doc.getIn(['tool_views', view]))) {
    throw notFound('view', view, mapKeys(doc.get('tool_views')), '"mcpkit view list" shows the views.');
  }
  const path = view === undefined ? ['hooks'] : ['tool_views', view, 'hooks'];
  const before: Partial<Record<HookName, string>> = {};
  for (const hook of ['pre_call', 'post_call'] as const) {
    const value = doc.getIn([...path, hook]);
    if (typeof value === 'string') before[hook] = value;
  }
  for (const [hook, value] of Object.entries(change) as [HookName, string | null | undefined][]) {
    if (value === undefined) continue;
    if (value === null) {
      if (doc.hasIn([...path, hook])) doc.deleteIn([...path, hook]);
    } else {
      if (!isMap(doc.getIn(path))) doc.setIn(path, doc.createNode({}));
      doc.setIn([...path, hook], value);
    }
  }
  const left = doc.getIn(path);
  if (isMap(left) && left.items.length === 0) doc.deleteIn(path);
  return before;
}
