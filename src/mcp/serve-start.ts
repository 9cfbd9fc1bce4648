import type { UpstreamStatus } from '../proxy/upstream/upstream-status.js';

/**
 * Whether serve starts its upstream servers with itself (issue 70: a started gateway's first
 * tools/list is answered at once): --eager / --no-eager, else serve.eager, else yes. The servers
 * a first listing would start anyway (every server of the view listed) start before any client
 * asks, so a broken one shows at start, in /health, not on an agent's first request. Pure.
 */
export function startsServersAtOnce(flag: boolean | undefined, configured: boolean | undefined): boolean {
  return flag ?? configured ?? true;
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
    await Promise.race([work.then(() => undefined, () => undefined), bound]);
  } finally {
    clearTimeout(timer);
  }
}
