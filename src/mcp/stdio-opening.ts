import { PassThrough, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { PROTOCOL_VERSION_META_KEY, type ClientCapabilities } from '@modelcontextprotocol/server';
import { capabilitiesNeedOwnConnections } from './pipeline/own-connections.js';

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
    const declared = isObject(params.capabilities) ? (params.capabilities as ClientCapabilities) : undefined;
    // A stdio client is not remote: its roots reach the servers (as the dispatcher decides it).
    return capabilitiesNeedOwnConnections(declared, true) ? 'own' : 'legacy';
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
export interface TappedInput {
  copy: PassThrough;
  opening: Promise<string | undefined>;
  ended: Promise<void>;
}

export function tapOpening(source: Readable): TappedInput {
  const copy = new PassThrough();
  const ended = source.readableEnded ? Promise.resolve() : new Promise<void>((resolve) => source.once('end', () => resolve()));
  source.pipe(copy, { end: false });
  const opening = new Promise<string | undefined>((resolve) => {
    // Characters split across chunks are joined (a decoder), and only each new chunk is scanned.
    const decoder = new StringDecoder('utf8');
    let line = '';
    let bytes = 0;
    const done = (found: string | undefined) => {
      source.off('data', heard);
      source.off('end', gone);
      source.off('close', gone);
      resolve(found);
    };
    const heard = (chunk: Buffer | string) => {
      bytes += chunk.length;
      let text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n')) {
        const whole = line + text.slice(0, end);
        // Blank lines are skipped, as the transport skips them.
        if (whole.trim() !== '') return done(whole);
        line = '';
        text = text.slice(end + 1);
      }
      line += text;
      if (bytes > MOST_OPENING_BYTES) done(undefined);
    };
    const gone = () => done(undefined);
    if (source.readableEnded) return done(undefined);
    source.on('data', heard);
    source.once('end', gone);
    source.once('close', gone);
  });
  return { copy, opening, ended };
}
