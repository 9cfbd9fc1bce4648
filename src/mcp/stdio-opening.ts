import { PassThrough, type Readable } from 'node:stream';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';

/**
 * What serve over stdio starts for its one client before the client asks (serve.eager), decided
 * from the client's opening request: a client writes it as soon as it has started serve, so it is
 * usually read while serve is still starting. Its era and its capabilities decide which
 * connections the client will use; servers started for other ones would run twice.
 * - `legacy`: a 2025-11-25 `initialize` that asks for nothing a server may ask of the client:
 *   the shared connections, started at once;
 * - `modern`: a 2026-07-28 request (`server/discover`, or one that carries its protocol version):
 *   the shared connections of that era, started at once;
 * - `own`: an `initialize` that declares sampling, elicitation or roots: the client gets
 *   connections of its own, which need it connected first, so they start once its `initialize` is
 *   answered (./stdio.ts);
 * - undefined (anything else, or nothing): each server starts on first use. Pure.
 */
export type OpeningWarm = 'legacy' | 'modern' | 'own';

export function warmForOpening(line: string | undefined): OpeningWarm | undefined {
  let message: unknown;
  try {
    message = line === undefined ? undefined : JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(message) || typeof message.method !== 'string' || message.id === undefined) return undefined;
  const params = isObject(message.params) ? message.params : {};
  if (message.method === 'initialize') {
    const asks = isObject(params.capabilities) ? params.capabilities : {};
    // A stdio client's roots reach every server that forwards them (the dispatcher's needsOwnConnections, not remote).
    return asks.sampling || asks.elicitation || asks.roots ? 'own' : 'legacy';
  }
  if (message.method === 'server/discover' || (isObject(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta)) return 'modern';
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Longest opening line read for the decision: past it, none is made (each server starts on first use). */
const MOST_OPENING_BYTES = 1024 * 1024;

/**
 * The stream serve's stdio transport reads (a copy of `source` that a client closing its end does
 * not end: ./stdio.ts ends the session once every request has its answer), and the client's first
 * line, read from the same chunks as they arrive, before the transport parses them; and the end of
 * `source`, which may come before serve has started (a client that wrote everything and closed).
 */
export function tapOpening(source: Readable): { input: PassThrough; opening: Promise<string | undefined>; ended: Promise<void> } {
  const input = new PassThrough();
  const ended = new Promise<void>((resolve) => source.once('end', () => resolve()));
  source.pipe(input, { end: false });
  const opening = new Promise<string | undefined>((resolve) => {
    let seen = '';
    const done = (line: string | undefined) => {
      source.off('data', heard);
      source.off('end', ended);
      source.off('close', ended);
      resolve(line);
    };
    const heard = (chunk: Buffer | string) => {
      seen += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      const end = seen.indexOf('\n');
      if (end >= 0) done(seen.slice(0, end));
      else if (seen.length > MOST_OPENING_BYTES) done(undefined);
    };
    const ended = () => done(undefined);
    source.on('data', heard);
    source.once('end', ended);
    source.once('close', ended);
  });
  return { input, opening, ended };
}
