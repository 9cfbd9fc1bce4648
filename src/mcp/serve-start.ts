import type { UpstreamStatus } from '../proxy/upstream/upstream-status.js';

/**
 * Whether serve starts its upstream servers with itself (issue 70: a started gateway's first
 * tools/list is answered at once): --eager / --no-eager, else serve.eager, else yes. The servers
 * a first listing would start anyway (every server of the view listed) start before any client
 * asks, so a broken one shows at start, in /health, not on an agent's first request: over HTTP
 * every enabled server, in the era most clients speak, which the default catalog and every view's
 * route share. Over stdio serve has one client, and starts the view's servers once that client has
 * said who it is (its opening request, ./stdio.ts): its era and its capabilities decide which
 * connections it uses, and a server started for other ones would run twice. Pure.
 */
export function startsServersAtOnce(flag: boolean | undefined, configured: boolean | undefined): boolean {
  return flag ?? configured ?? true;
}

/**
 * The views whose servers serve starts before they are asked for, or none (serve.eager off): over
 * stdio the one served (at the client's opening request), over HTTP the default catalog (every
 * enabled server) and every view, whose routes all serve at once (with serve). Pure.
 */
export function viewsStartedWithServe(
  options: { eager?: boolean | undefined; http?: boolean | undefined; view?: string | undefined },
  config: { serve: { eager?: boolean | undefined }; tool_views: Readonly<Record<string, unknown>> },
): (string | undefined)[] | undefined {
  if (!startsServersAtOnce(options.eager, config.serve.eager)) return undefined;
  return options.http ? [undefined, ...Object.keys(config.tool_views)] : [options.view];
}

/** How long serve --http waits at start for the servers it started before it says it listens (serve.start_wait_ms). */
export const START_WAIT_MS = 5000;

/**
 * What the listening line adds about the servers started with serve that are not connected: the
 * ones still starting (a first listing waits for those only, as long as a listing waits) and the
 * ones that failed (/health says why). Empty when every one is connected. Pure.
 */
export function startNote(statuses: readonly Pick<UpstreamStatus, 'name' | 'state'>[]): string {
  const named = (states: readonly string[]) =>
    statuses
      .filter((s) => states.includes(s.state))
      .map((s) => s.name)
      .sort();
  const starting = named(['connecting']);
  const failed = named(['down', 'needs_login']);
  const parts = [
    ...(starting.length ? [`still starting: ${starting.join(', ')}`] : []),
    ...(failed.length ? [`not connected (see /health): ${failed.join(', ')}`] : []),
  ];
  return parts.length ? `; servers ${parts.join('; ')}` : '';
}

/**
 * Waits for the servers started with serve, no longer than `ms`: a server that hangs at start
 * delays serve's "listening" by that bound at most, and is named in it.
 */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([
      work.then(
        () => undefined,
        () => undefined,
      ),
      bound,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** serve --http's start, as far as its "listening" line waits for it: the servers started with serve (serve.eager). */
export interface StartedServers {
  warming: Promise<void>;
  /** serve.start_wait_ms. */
  waitMs: number | undefined;
  statuses(): readonly Pick<UpstreamStatus, 'name' | 'state'>[];
}

/**
 * serve --http's "listening" line. It means started: said once the servers started with serve
 * are connected, or after the bound, naming those that are not (the port is bound already).
 */
export async function listeningLine(
  http: { url: string; resource: string },
  oauthIssuer: string | undefined,
  started: StartedServers | undefined,
): Promise<string> {
  let note = '';
  if (started) {
    await settledWithin(started.warming, started.waitMs ?? START_WAIT_MS);
    note = startNote(started.statuses());
  }
  const oauth = oauthIssuer ? `; OAuth: tokens from ${oauthIssuer}, metadata at ${http.resource}/.well-known/oauth-protected-resource/mcp` : '';
  return `mcpkit serve: listening on ${http.url}/mcp (views: ${http.url}/views, health: ${http.url}/health)${note}${oauth}`;
}
