import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolError } from '../core/errors.js';

export interface LoopbackRedirect {
  /** http://127.0.0.1:PORT/callback */
  readonly url: string;
  /**
   * The authorization the browser brings back (its state checked), or the refusal: the code, and
   * the issuer the server named (`iss`, RFC 9207), which the SDK checks against the one it asked.
   */
  authorization(expectedState: () => string | undefined, timeoutMs: number, signal?: AbortSignal): Promise<{ code: string; iss?: string }>;
  close(): Promise<void>;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

type RedirectResult = { code?: string; error?: string; state?: string; iss?: string };

function listenOn(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

/** What the browser brought to /callback, answered with a page saying so; undefined (and 404) for any other path. */
function redirectOf(path: string | undefined, res: ServerResponse): RedirectResult | undefined {
  const url = new URL(path ?? '/', 'http://127.0.0.1');
  if (url.pathname !== '/callback') {
    res.writeHead(404).end();
    return undefined;
  }
  const error = url.searchParams.get('error');
  const description = url.searchParams.get('error_description');
  const result = {
    code: url.searchParams.get('code') ?? undefined,
    error: error ? `${error}${description ? `: ${description}` : ''}` : undefined,
    state: url.searchParams.get('state') ?? undefined,
    iss: url.searchParams.get('iss') ?? undefined,
  };
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    result.code
      ? PAGE('Logged in', 'mcpkit has the authorization. You can close this tab.')
      : PAGE('Login failed', 'mcpkit did not get an authorization; see the terminal.'),
  );
  return result;
}

/**
 * The loopback redirect URI of a native app (RFC 8252 section 7.3): a server on 127.0.0.1 for the
 * one redirect of a login. A port the client was registered with is tried first; 0 picks a free one.
 */
export async function listenForRedirect(port: number): Promise<LoopbackRedirect> {
  let deliver: ((result: RedirectResult) => void) | undefined;
  const early: RedirectResult[] = [];
  const server: Server = createServer((req, res) => {
    const result = redirectOf(req.url, res);
    if (!result) return;
    if (deliver) deliver(result);
    else early.push(result);
  });
  await listenOn(server, port).catch(async (error) => {
    if (port === 0) throw error;
    // The registered port is taken: any free one (the caller re-registers when it must).
    await listenOn(server, 0);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return {
    url,
    authorization(expectedState, timeoutMs, signal) {
      return new Promise<{ code: string; iss?: string }>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new ToolError('TIMEOUT', `No answer from the authorization page within ${Math.round(timeoutMs / 1000)} s.`, {
                hint: 'Open the URL printed above in a browser and finish the login there, or run the login again (--timeout sets the wait).',
              }),
            ),
          timeoutMs,
        );
        const stop = () => {
          clearTimeout(timer);
          reject(new ToolError('TIMEOUT', 'The login was stopped before the authorization page answered.'));
        };
        signal?.addEventListener('abort', stop, { once: true });
        deliver = (result) => {
          if (result.error || !result.code) {
            clearTimeout(timer);
            reject(
              new ToolError('AUTH_FAILED', `The authorization server refused the login: ${result.error ?? 'no code in the redirect'}.`, {
                hint: 'Check the account and the scopes asked for, then log in again.',
              }),
            );
            return;
          }
          const expected = expectedState();
          if (expected !== undefined && result.state !== expected) return; // not our redirect: keep waiting
          clearTimeout(timer);
          signal?.removeEventListener('abort', stop);
          resolve({ code: result.code, ...(result.iss !== undefined ? { iss: result.iss } : {}) });
        };
        for (const result of early.splice(0)) deliver(result);
      });
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
