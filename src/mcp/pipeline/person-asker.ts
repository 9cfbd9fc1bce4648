import { createHash, randomUUID } from 'node:crypto';
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse, type ClientCapabilities } from '@modelcontextprotocol/server';
import { stableJson } from '../../core/stable-json.js';
import { InputRequiredAnswer, type PersonQuestion, type ToolContext } from '../../tool/context.js';
import { approvalForm } from '../../tools/shared/approval.js';
import type { RequestContext } from './request-context.js';
import type { SharedStore } from '../../store/shared-store.js';

/** The key of mcpkit's question in a 2026-07-28 input_required result and in the retry's answers. */
const KEY = 'mcpkit_approval';
/** How long a 2026 client has to come back with the person's answer. */
const ANSWER_TTL_MS = 10 * 60_000;
const MAX_OPEN_QUESTIONS = 1000;

/**
 * The questions put to 2026-07-28 clients and not yet answered, each bound to the call it was
 * asked for (the tool and the digest of its arguments) under an unguessable request state: a
 * retry that carries an answer is taken only for the same call, once.
 */
export interface QuestionBook {
  /** A new request state for a question about this call. */
  ask(call: string): Promise<string>;
  /** Whether `state` was issued for this call and is still open; it is closed either way. */
  take(state: string, call: string): Promise<boolean>;
}

/** The book of one process: a retry that reaches another replica is asked again. */
export class OpenQuestions implements QuestionBook {
  private readonly open = new Map<string, { call: string; expires: number }>();

  async ask(call: string): Promise<string> {
    const now = Date.now();
    for (const [state, q] of this.open) if (q.expires < now || this.open.size >= MAX_OPEN_QUESTIONS) this.open.delete(state);
    const state = randomUUID();
    this.open.set(state, { call, expires: now + ANSWER_TTL_MS });
    return state;
  }

  async take(state: string, call: string): Promise<boolean> {
    const q = this.open.get(state);
    this.open.delete(state);
    return q !== undefined && q.expires >= Date.now() && q.call === call;
  }
}

/** The book the replicas share in serve.store: an answer is taken on whichever replica the retry reaches, once. */
export class SharedQuestions implements QuestionBook {
  constructor(private readonly store: SharedStore) {}

  async ask(call: string): Promise<string> {
    const state = randomUUID();
    await this.store.openQuestion(state, call, ANSWER_TTL_MS);
    return state;
  }

  async take(state: string, call: string): Promise<boolean> {
    return (await this.store.takeQuestion(state)) === call;
  }
}

/** What a call is, for binding an answer to it: the tool and its arguments. */
export function callDigest(tool: string, args: unknown): string {
  return createHash('sha256')
    .update(stableJson({ tool, args: args ?? {} }))
    .digest('base64url');
}

/**
 * ToolContext.askPerson for one tools/call: a 2025-11-25 client is sent an elicitation request
 * and its answer awaited; a 2026-07-28 client gets an input_required result the first time and is
 * taken at its word on the retry that carries the answer under the state issued for this call.
 */
export function personAsker(
  ctx: Pick<RequestContext, 'envelope' | 'inputResponses' | 'requestState' | 'elicit'>,
  call: { tool: string; args: unknown },
  clientCapabilities: () => ClientCapabilities | undefined,
  questions: QuestionBook,
): NonNullable<ToolContext['askPerson']> {
  return async (question: PersonQuestion) => {
    const form = approvalForm(question);
    const envelope = ctx.envelope;
    if (envelope !== undefined) {
      const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
      if (!capabilities?.elicitation) return 'unavailable';
      const digest = callDigest(call.tool, call.args);
      const state = ctx.requestState;
      if (typeof state === 'string' && (await questions.take(state, digest))) {
        const answer = inputResponse(ctx.inputResponses as Parameters<typeof inputResponse>[0], KEY);
        return answer.kind === 'elicit' && answer.action === 'accept' && answer.content?.approve === true ? 'approved' : 'declined';
      }
      throw new InputRequiredAnswer(
        inputRequired({
          inputRequests: { [KEY]: inputRequired.elicit({ mode: 'form', ...form }) },
          requestState: await questions.ask(digest),
        }) as unknown as Record<string, unknown>,
      );
    }
    if (!clientCapabilities()?.elicitation || !ctx.elicit) return 'unavailable';
    const answer = (await ctx.elicit({ mode: 'form', ...form }, ANSWER_TTL_MS)) as { action?: unknown; content?: { approve?: unknown } };
    return answer.action === 'accept' && answer.content?.approve === true ? 'approved' : 'declined';
  };
}
