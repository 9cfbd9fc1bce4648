import type { DownstreamRelay } from '../proxy/upstream.js';

/**
 * How `mcpkit call --elicitation MODE` answers a server that asks its user for input during the
 * call (elicitation/create, form mode), when no person is there to ask: every form accepted with
 * the defaults its schema gives (SEP-1034: a client fills in what a field's default says), or
 * declined, or cancelled. Without the flag mcpkit declares no elicitation, and a server cannot ask.
 */
export const ELICITATION_MODES = ['accept-defaults', 'decline', 'cancel'] as const;
export type ElicitationMode = (typeof ELICITATION_MODES)[number];

interface FormSchema {
  properties?: Record<string, { type?: unknown; default?: unknown; enum?: unknown }>;
}

export type ElicitationAnswer = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' | 'cancel' };

/**
 * The answer to one form. `accept-defaults` fills each field that has a default of a primitive
 * value (a string, number or boolean: what a form's fields hold); a field without one is left
 * out, as a person who left it empty would. Pure.
 */
export function answerForm(mode: ElicitationMode, requestedSchema: unknown): ElicitationAnswer {
  if (mode !== 'accept-defaults') return { action: mode };
  const content: Record<string, unknown> = {};
  const properties = (requestedSchema as FormSchema | undefined)?.properties ?? {};
  for (const [name, field] of Object.entries(properties)) {
    const value = field?.default;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') content[name] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) content[name] = value; // a multi-select's defaults
  }
  return { action: 'accept', content };
}

/**
 * The terminal as the client of a call's connections: it declares form elicitation and answers
 * every form as `mode` says. A URL-mode elicitation, sampling or roots are not declared, so no
 * server asks for them.
 */
export function terminalRelay(mode: ElicitationMode, told: (message: string) => void): DownstreamRelay {
  return {
    capabilities: { elicitation: { form: {} } },
    async request(method, params) {
      if (method !== 'elicitation/create') throw new Error(`mcpkit call does not answer ${method}`);
      const { message, requestedSchema } = (params ?? {}) as { message?: unknown; requestedSchema?: unknown };
      const answer = answerForm(mode, requestedSchema);
      told(
        `a server asked: ${typeof message === 'string' ? message : '(no message)'}; answered ${answer.action}${answer.action === 'accept' ? ` with ${JSON.stringify(answer.content)}` : ''} (--elicitation ${mode})`,
      );
      return answer;
    },
  };
}
