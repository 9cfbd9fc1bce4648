import type { DownstreamRelay } from '../../proxy/upstream/upstream.js';

/**
 * How `mcpkit call --elicitation MODE` answers a server that asks its user for input during the
 * call (elicitation/create, form mode): `ask` puts each field to the person at the terminal (or
 * reads the answers from stdin, a line each); `accept-defaults` accepts each form with the
 * defaults its fields give (SEP-1034: a client fills in what a field's default says); `decline`
 * and `cancel` answer so. Without the flag mcpkit declares no elicitation, and a server cannot ask.
 */
export const ELICITATION_MODES = ['ask', 'accept-defaults', 'decline', 'cancel'] as const;
export type ElicitationMode = (typeof ELICITATION_MODES)[number];

/** One field of a form, as the spec allows them: a string (maybe an enum), a number, a boolean, or a multi-select. */
export interface FormField {
  type?: unknown;
  title?: unknown;
  description?: unknown;
  default?: unknown;
  enum?: unknown;
  enumNames?: unknown;
  oneOf?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  items?: { enum?: unknown; anyOf?: unknown };
}

export interface FormSchema {
  properties?: Record<string, FormField>;
  required?: unknown;
}

export type ElicitationAnswer = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' | 'cancel' };

/** The value a field's default gives, when it is one a form field can hold. Pure. */
export function defaultOf(field: FormField | undefined): unknown {
  const value = field?.default;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value; // a multi-select's defaults
  return undefined;
}

const requiredOf = (schema: FormSchema | undefined): string[] =>
  Array.isArray(schema?.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];

/**
 * The answer to one form without asking anyone. `accept-defaults` fills each field that has a
 * default and leaves the others out, as a person leaving them empty would; a form that requires a
 * field without a default cannot be accepted so, and is declined (`why` says which). Pure.
 */
export function answerForm(mode: Exclude<ElicitationMode, 'ask'>, requestedSchema: unknown): ElicitationAnswer & { why?: string } {
  if (mode !== 'accept-defaults') return { action: mode };
  const schema = requestedSchema as FormSchema | undefined;
  const content: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema?.properties ?? {})) {
    const value = defaultOf(field);
    if (value !== undefined) content[name] = value;
  }
  const missing = requiredOf(schema).filter((name) => !(name in content));
  if (missing.length) return { action: 'decline', why: `the form requires ${missing.join(', ')}, which has no default` };
  return { action: 'accept', content };
}

/** The choices of an enum field (or a multi-select's items): their values and, where given, titles. Pure. */
export function choicesOf(field: FormField): { value: string; title?: string }[] | undefined {
  const source: { enum?: unknown; oneOf?: unknown; anyOf?: unknown } | undefined = field.type === 'array' ? field.items : field;
  if (Array.isArray(source?.enum)) {
    const names = Array.isArray(field.enumNames) ? (field.enumNames as unknown[]) : [];
    return source.enum
      .filter((v): v is string => typeof v === 'string')
      .map((value, i) => ({ value, ...(typeof names[i] === 'string' ? { title: names[i] as string } : {}) }));
  }
  const consts = source?.oneOf ?? source?.anyOf;
  if (!Array.isArray(consts)) return undefined;
  return consts
    .filter((c): c is { const: string; title?: unknown } => typeof (c as { const?: unknown })?.const === 'string')
    .map((c) => ({ value: c.const, ...(typeof c.title === 'string' ? { title: c.title } : {}) }));
}

/** Choices as they are put to a person: numbered, by title where they have one. */
const numbered = (choices: readonly { value: string; title?: string }[]) => choices.map((c, i) => `${i + 1}) ${c.title ?? c.value}`).join(', ');

/**
 * What a line typed for a field means: its value, nothing (an empty line: the default, or left
 * out), or why it cannot be taken. A choice may be given by its value, its title or its number
 * in the list; a multi-select takes several, separated by commas. Pure.
 */
export function parseField(field: FormField, text: string): { value?: unknown; error?: string } {
  const typed = text.trim();
  if (typed === '') return {};
  const choices = choicesOf(field);
  const pick = (one: string) => {
    const n = /^\d+$/.test(one) ? Number(one) : NaN;
    return choices?.find((c, i) => c.value === one || c.title?.toLowerCase() === one.toLowerCase() || i + 1 === n)?.value;
  };
  if (field.type === 'array') {
    const picked = typed.split(',').map((s) => s.trim());
    const values = picked.map(pick);
    const bad = picked.filter((_, i) => values[i] === undefined);
    return bad.length ? { error: `not a choice: ${bad.join(', ')}` } : { value: values };
  }
  if (choices) {
    const value = pick(typed);
    return value === undefined ? { error: `choose one of ${numbered(choices)}` } : { value };
  }
  if (field.type === 'boolean') {
    if (/^(y|yes|true|1)$/i.test(typed)) return { value: true };
    if (/^(n|no|false|0)$/i.test(typed)) return { value: false };
    return { error: 'answer y or n' };
  }
  if (field.type === 'integer' || field.type === 'number') {
    const value = Number(typed);
    if (!Number.isFinite(value) || (field.type === 'integer' && !Number.isInteger(value)))
      return { error: `not ${field.type === 'integer' ? 'an integer' : 'a number'}` };
    if (typeof field.minimum === 'number' && value < field.minimum) return { error: `at least ${field.minimum}` };
    if (typeof field.maximum === 'number' && value > field.maximum) return { error: `at most ${field.maximum}` };
    return { value };
  }
  return { value: text };
}

/** How a field is put to the person: its label, what it takes, and its default. Pure. */
export function fieldPrompt(name: string, field: FormField, required: boolean): string {
  const label = typeof field.title === 'string' ? `${field.title} (${name})` : name;
  const choices = choicesOf(field);
  const takes = choices
    ? `${field.type === 'array' ? 'one or more of' : 'one of'} ${numbered(choices)}`
    : field.type === 'boolean'
      ? 'y/n'
      : typeof field.type === 'string'
        ? field.type
        : 'text';
  const fallback = defaultOf(field);
  const shown = fallback === undefined ? '' : ` [${Array.isArray(fallback) ? fallback.join(',') : String(fallback)}]`;
  const about = typeof field.description === 'string' ? ` - ${field.description}` : '';
  return `  ${label}${required ? ' *' : ''}${about} (${takes})${shown}: `;
}

/** A source of typed lines and a place for prompts (the terminal, or stdin and stderr). */
export interface Asker {
  question(prompt: string): Promise<string | undefined>;
  say(line: string): void;
}

/**
 * Puts a form to a person, field by field: an empty line keeps the default (or leaves the field
 * out), a required field is asked again until given, and the end asks whether to send it. The
 * end of input cancels.
 */
export async function askForm(message: string, requestedSchema: unknown, asker: Asker): Promise<ElicitationAnswer> {
  const schema = requestedSchema as FormSchema | undefined;
  const required = requiredOf(schema);
  asker.say(`mcpkit: a server asks: ${message}`);
  const content: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema?.properties ?? {})) {
    for (;;) {
      const line = await asker.question(fieldPrompt(name, field, required.includes(name)));
      if (line === undefined) return { action: 'cancel' };
      const parsed = parseField(field, line);
      if (parsed.error) {
        asker.say(`  ${parsed.error}`);
        continue;
      }
      const value = parsed.value ?? defaultOf(field);
      if (value === undefined && required.includes(name)) {
        asker.say('  this field is required');
        continue;
      }
      if (value !== undefined) content[name] = value;
      break;
    }
  }
  for (;;) {
    const line = await asker.question('Send it? [Y]es, [n]o (decline), [c]ancel: ');
    if (line === undefined) return { action: 'cancel' };
    const typed = line.trim().toLowerCase();
    if (typed === '' || typed === 'y' || typed === 'yes') return { action: 'accept', content };
    if (typed === 'n' || typed === 'no') return { action: 'decline' };
    if (typed === 'c' || typed === 'cancel') return { action: 'cancel' };
  }
}

/**
 * The terminal as the client of a call's connections: it declares form elicitation and answers
 * each form as `mode` says (`ask`: through `asker`). A URL-mode elicitation, sampling or roots are
 * not declared, so no server asks for them.
 */
export function terminalRelay(mode: ElicitationMode, told: (message: string) => void, asker?: () => Asker): DownstreamRelay {
  return {
    capabilities: { elicitation: { form: {} } },
    async request(method, params) {
      if (method !== 'elicitation/create') throw new Error(`mcpkit call does not answer ${method}`);
      const { message, requestedSchema } = (params ?? {}) as { message?: unknown; requestedSchema?: unknown };
      const text = typeof message === 'string' ? message : '(no message)';
      if (mode === 'ask') {
        const answer = await askForm(text, requestedSchema, asker!());
        told(`answered ${answer.action}`);
        return answer;
      }
      const { why, ...answer } = answerForm(mode, requestedSchema);
      told(
        `a server asked: ${text}; answered ${answer.action}${answer.action === 'accept' ? ` with ${JSON.stringify(answer.content)}` : ''}${why ? ` (${why})` : ''} (--elicitation ${mode})`,
      );
      return answer;
    },
  };
}
