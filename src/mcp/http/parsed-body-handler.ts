import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { firstHeader } from './http-wire.js';

/** The web-standard face of the SDK's modern handler (createMcpHandler's `fetch`). */
type FetchHandler = (request: Request, options?: { authInfo?: AuthInfo; parsedBody?: unknown }) => Promise<Response>;

/**
 * The SDK's toNodeHandler (@modelcontextprotocol/node), for a request whose body serve has read
 * and parsed already (http-wire.ts readJson), as every 2026-07-28 POST's is. The handler is given
 * that body as `parsedBody` and never reads the Request's, so the Request is built without one:
 * toNodeHandler serialized the body again, encoded it and made a web stream of it per request,
 * which only the SDK's own parse of it would read. A JSON answer is written as one body of known
 * length, not read chunk by chunk from its web stream; an event stream is passed on as
 * toNodeHandler passes it (backpressure, the client's leaving). Everything else is toNodeHandler's:
 * the Request's URL, method, headers and abort signal (aborted when the client goes before the
 * answer is over), req.auth as authInfo, and a 500 with the JSON-RPC internal error when the
 * handler throws (it throws only once closed).
 */
export function parsedBodyHandler(handler: {
  fetch: FetchHandler;
}): (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown) => Promise<void> {
  return async (req, res, body) => {
    let finished = false;
    const abort = new AbortController();
    res.on('close', () => {
      if (!finished) abort.abort();
    });
    if (res.destroyed) abort.abort();
    let response: Response;
    try {
      response = await handler.fetch(requestOf(req, abort.signal), {
        ...(req.auth !== undefined ? { authInfo: req.auth } : {}),
        parsedBody: body,
      });
    } catch {
      response = new Response(internalError(body), { status: 500, headers: { 'content-type': 'application/json' } });
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of response.headers) headers[name] = value;
    if (response.body === null) {
      finished = true;
      res.writeHead(response.status, headers).end();
      return;
    }
    if (!isEventStream(headers['content-type'])) {
      // A whole JSON answer (Response.json): its bytes at once. A body that fails as it is read ends
      // the exchange with an error answer, as a failed handler does (toNodeHandler ended it unanswered).
      let bytes: Buffer;
      try {
        bytes = Buffer.from(await response.arrayBuffer());
      } catch {
        finished = true;
        res.writeHead(500, { 'content-type': 'application/json' }).end(internalError(body));
        return;
      }
      finished = true;
      res.writeHead(response.status, { ...headers, 'content-length': String(bytes.length) }).end(bytes);
      return;
    }
    res.writeHead(response.status, headers);
    await pipeStream(response.body, res, abort.signal);
    finished = true;
    res.end();
  };
}

/** The Request the handler reads: toWebRequest's, less the body it is given parsed (and the headers that described that body). */
function requestOf(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (name === 'content-length' || name === 'transfer-encoding' || name === 'content-encoding') continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const url = `http://${firstHeader(req.headers.host) ?? firstHeader(req.headers[':authority']) ?? 'localhost'}${req.url ?? '/'}`;
  const request = new Request(url, { method: (req.method ?? 'GET').toUpperCase(), headers });
  // The client's leaving, as the request's signal: given as `signal` in the init, the Request would
  // make a signal of its own that follows this one (~30 µs a request here); the handler only reads
  // `request.signal` (the exchange's end, a listen stream's), so the getter is shadowed instead.
  Object.defineProperty(request, 'signal', { value: signal, enumerable: true });
  return request;
}

function isEventStream(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().startsWith('text/event-stream');
}

/** The JSON-RPC error answer to a request the handler failed on. */
function internalError(body: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: echoableId(body) });
}

/** The id a JSON-RPC error answer echoes: a single request's string or number id, else null (as the SDK's). */
function echoableId(body: unknown): string | number | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== 'string') return null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** An event stream, written as it comes: waiting for the client to drain, and ending when it goes. */
async function pipeStream(body: ReadableStream<Uint8Array>, res: ServerResponse, gone: AbortSignal): Promise<void> {
  let drained: (() => void) | undefined;
  const release = () => {
    drained?.();
    drained = undefined;
  };
  res.on('drain', release);
  const closed = new Promise<void>((resolve) => gone.addEventListener('abort', () => resolve(), { once: true }));
  try {
    for await (const chunk of body) {
      if (gone.aborted) break;
      if (!res.write(chunk)) await Promise.race([new Promise<void>((resolve) => (drained = resolve)), closed]);
    }
  } catch {
    // the stream failed or was cancelled: the answer ends here, as toNodeHandler ends it
  } finally {
    res.off('drain', release);
  }
}
