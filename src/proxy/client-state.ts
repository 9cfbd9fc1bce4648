import type { LoggingLevel } from '@modelcontextprotocol/server';
import { ToolError } from '../core/errors.js';
import { logPasses, mostVerbose } from './log-levels.js';

/** What the client state needs of an upstream: to be told a log level, and to take subscriptions. */
export interface StateTarget {
  readonly name: string;
  setLoggingLevel(level: LoggingLevel): Promise<void>;
  /** resources/subscribe or unsubscribe; false for a server that does not take subscriptions. */
  subscription(uri: string, on: boolean): Promise<boolean>;
}

/**
 * The one owner of what each client of a view asked for: its log level and the resources it
 * subscribed to. Clients are told apart by their session object. Upstreams are shared, so they
 * get the most verbose level any client wants and one subscription per URI, whoever asks, kept
 * while any client still wants it; each client then gets only what it asked for.
 */
export class ClientStates {
  private readonly levels = new Map<object, LoggingLevel>();
  private readonly subscribers = new Map<string, { target: StateTarget; sessions: Set<object> }>();

  constructor(
    private targets: readonly StateTarget[],
    /** The server that owns a resource URI, if any of the view's does. */
    private readonly ownerOf: (uri: string) => Promise<StateTarget | undefined>,
  ) {}

  /** logging/setLevel from one client; the servers are asked for the most verbose level of all. */
  async setLogLevel(session: object, level: LoggingLevel): Promise<void> {
    this.levels.set(session, level);
    await this.applyLevels();
  }

  /** Whether a log message at `level` goes to this client (every message, until it sets a level). */
  wantsLog(session: object, level: LoggingLevel): boolean {
    return logPasses(level, this.levels.get(session));
  }

  /** resources/subscribe: the server that owns the URI is subscribed once, whoever else asks. */
  async subscribe(session: object, uri: string): Promise<void> {
    const target = await this.ownerOf(uri);
    if (!target)
      throw new ToolError('NOT_FOUND', `Resource not found: ${uri}.`, { details: { uri }, hint: 'Call resources/list for the available resources.' });
    const entry = this.subscribers.get(uri) ?? { target, sessions: new Set<object>() };
    if (entry.sessions.size === 0 && !(await target.subscription(uri, true))) {
      throw new ToolError('NOT_FOUND', `Server "${target.name}" does not take subscriptions, so ${uri} cannot be watched.`, {
        details: { uri, server: target.name },
      });
    }
    entry.sessions.add(session);
    this.subscribers.set(uri, entry);
  }

  async unsubscribe(session: object, uri: string): Promise<void> {
    const entry = this.subscribers.get(uri);
    if (!entry?.sessions.delete(session)) return;
    if (entry.sessions.size === 0) {
      this.subscribers.delete(uri);
      await entry.target.subscription(uri, false);
    }
  }

  /** Whether this client subscribed to the URI (only then does it hear of updates). */
  subscribed(session: object, uri: string): boolean {
    return this.subscribers.get(uri)?.sessions.has(session) ?? false;
  }

  /**
   * The view's servers changed (a config reload): subscriptions to servers that are gone are
   * dropped, the clients' log level is sent to the servers that came.
   */
  retarget(targets: readonly StateTarget[]): void {
    const added = targets.filter((t) => !this.targets.includes(t));
    this.targets = targets;
    for (const [uri, entry] of this.subscribers) if (!targets.includes(entry.target)) this.subscribers.delete(uri);
    const level = mostVerbose(this.levels.values());
    if (level) for (const t of added) void t.setLoggingLevel(level).catch(() => undefined);
  }

  /** A client went away: its level and subscriptions no longer count. */
  async detach(session: object): Promise<void> {
    const hadLevel = this.levels.delete(session);
    await Promise.allSettled([...this.subscribers.keys()].map((uri) => this.unsubscribe(session, uri)));
    if (hadLevel) await this.applyLevels();
  }

  private async applyLevels(): Promise<void> {
    const level = mostVerbose(this.levels.values());
    if (level) await Promise.allSettled(this.targets.map((t) => t.setLoggingLevel(level)));
  }
}
