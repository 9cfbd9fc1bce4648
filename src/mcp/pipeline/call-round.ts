import type { IncomingHttpHeaders } from 'node:http';
import type { CallParams } from './dispatcher.js';
import { modernRequestOf } from './modern-request.js';
import { wireError } from './protocol-errors.js';
import type { RequestContext } from './request-context.js';

/**
 * One round of a tools/call run outside the SDK's request handling (the task host's rounds, a call
 * another replica passed here): its context, how it ended, and the headers it is sent with.
 */

/** How one round of a call ended. */
export type Outcome = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };

/**
 * The request context of one round of a hosted call: no stream (the answer is one JSON body, or a
 * task's). `lasting`: `signal` is the whole call's (a task's), so it stops a call bridged to a 2025
 * server even between rounds (ModernRequest.lasting).
 */
export function roundContext(
  id: unknown,
  params: CallParams & { inputResponses?: unknown; requestState?: unknown },
  headers: Record<string, string>,
  signal: AbortSignal,
  arrived?: number,
  lasting = false,
): RequestContext {
  const envelope = params._meta;
  const answers = { inputResponses: params.inputResponses, requestState: params.requestState };
  const modern = modernRequestOf(envelope, answers, Object.entries(headers));
  return {
    id: id as string | number,
    signal,
    envelope,
    ...(modern ? { modern: lasting ? { ...modern, lasting } : modern } : {}),
    ...answers,
    notify: () => Promise.resolve(),
    ...(arrived !== undefined ? { arrived } : {}),
  };
}

/** A round's end, as an outcome (a thrown error is the JSON-RPC error it would be answered with). */
export const outcomeOf = (round: Promise<Record<string, unknown>>): Promise<Outcome> =>
  round.then(
    (result) => ({ result }),
    (error: unknown) => ({ error: wireError(error) }),
  );

/** The request headers a call is made again with (never the credential: the host passes the caller's access itself). */
export function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'authorization' || name === 'cookie' || name === 'content-length' || name === 'host' || name === 'connection') continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
