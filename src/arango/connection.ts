import type { Database } from 'arangojs';
import { ToolError } from '../core/errors.js';
import { withTimeout } from '../core/timeout.js';
import type { Logger } from '../core/logger.js';
import type { ArangoSettings } from './settings.js';

/**
 * One connection to ArangoDB that degrades instead of crashing (a database that is down never takes serve down). `serve`
 * calls start(): attempts with a delay in between, in the background, so the server is up at
 * once. While the database is away every call fails with DATABASE_UNAVAILABLE and a hint; the
 * next call after that tries again (one attempt, no wait), so a database that comes up later is
 * used without restarting anything. arangojs loads only here, on first use.
 */
export class ArangoConnection {
  private db: Database | undefined;
  private pending: Promise<Database> | undefined;
  private lastError: string | undefined;

  constructor(
    readonly settings: ArangoSettings,
    private readonly logger?: Logger,
  ) {}

  /** Connects in the background with the configured attempts; failures are only logged. */
  start(): void {
    this.pending ??= this.connect(this.settings.connectRetries).finally(() => (this.pending = undefined));
    this.pending.catch((error: Error) => this.logger?.warn(`ArangoDB: ${error.message}`));
  }

  async database(): Promise<Database> {
    if (this.db) return this.db;
    if (this.pending) {
      try {
        return await this.pending;
      } catch {
        /* the start-up attempts failed; try once more below */
      }
    }
    this.pending ??= this.connect(1).finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** After a network failure: the next call connects afresh. */
  lost(reason: string): void {
    this.db?.close(); // its sockets may be dead; the next call opens new ones
    this.db = undefined;
    this.lastError = reason;
  }

  get connected(): boolean {
    return this.db !== undefined;
  }

  private async connect(attempts: number): Promise<Database> {
    const { Database } = await import('arangojs');
    const { urls, database, username, password } = this.settings;
    for (let attempt = 1; ; attempt++) {
      const db = new Database({
        url: urls.length === 1 ? urls[0]! : urls,
        databaseName: database,
        auth: { username, password },
        loadBalancingStrategy: urls.length > 1 ? 'ROUND_ROBIN' : 'NONE',
        maxRetries: urls.length > 1 ? 0 : false,
      });
      try {
        await withDatabaseTimeout(db.version(), this.settings.timeoutMs, this.settings);
        await withDatabaseTimeout(db.get(), this.settings.timeoutMs, this.settings); // the database itself exists
        this.db = db;
        this.lastError = undefined;
        if (attempt > 1) this.logger?.info(`ArangoDB: connected to ${urls.join(', ')} (${database}) on attempt ${attempt}`);
        return db;
      } catch (error) {
        db.close();
        const mapped = toToolError(error, this);
        // A database that answers but refuses (wrong password, no such database) will not get better by waiting.
        if (mapped.code !== 'DATABASE_UNAVAILABLE' || attempt >= attempts) throw mapped;
        this.logger?.warn(`ArangoDB: attempt ${attempt} of ${attempts} failed (${mapped.message}); retrying in ${this.settings.connectDelayMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, this.settings.connectDelayMs));
      }
    }
  }

  unavailable(reason: string): ToolError {
    const { urls, database } = this.settings;
    this.lastError = reason;
    return new ToolError('DATABASE_UNAVAILABLE', `ArangoDB is not reachable at ${urls.join(', ')} (database ${database}): ${reason}`, {
      details: { urls, database, reason },
      hint: 'Start one (docker compose up -d in the mcpkit clone starts ArangoDB 3.12), or point mcpkit at yours with ARANGO_URL / arango.url. The next call connects again.',
    });
  }

  get lastFailure(): string | undefined {
    return this.lastError;
  }
}

/** A database call under the configured timeout; a late answer counts as the database being away. */
export function withDatabaseTimeout<T>(promise: Promise<T>, ms: number, settings: Pick<ArangoSettings, 'urls'>): Promise<T> {
  return withTimeout(promise, ms, () =>
    Object.assign(new Error(`no answer from ${settings.urls.join(', ')} within ${ms} ms`), { name: 'ResponseTimeoutError' }),
  );
}

const NETWORK = /ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|EPIPE|socket hang up|fetch failed|other side closed|terminated|UND_ERR/i;

/** The one error format of the arango tools: ARANGO_ERROR with errorNum and HTTP code, DATABASE_UNAVAILABLE, or INTERNAL. */
export function toToolError(error: unknown, connection?: ArangoConnection): ToolError {
  if (error instanceof ToolError) return error;
  const e = error as {
    name?: string;
    message?: string;
    errorNum?: number;
    code?: number | string;
    cause?: unknown;
    isArangoError?: boolean;
    response?: { status?: number; body?: unknown };
  };
  if (typeof e?.errorNum === 'number') {
    return new ToolError('ARANGO_ERROR', e.message ?? 'ArangoDB error', {
      details: { errorNum: e.errorNum, http_code: typeof e.code === 'number' ? e.code : undefined },
      hint: hintFor(e.errorNum),
    });
  }
  if (e?.name === 'HttpError' && typeof e.code === 'number') {
    return new ToolError('ARANGO_ERROR', `ArangoDB answered HTTP ${e.code} without an error body`, { details: { http_code: e.code } });
  }
  const text = [e?.message, (e?.cause as { message?: string; code?: string } | undefined)?.code, (e?.cause as { message?: string } | undefined)?.message]
    .filter(Boolean)
    .join(' ');
  if (
    e?.name === 'ResponseTimeoutError' ||
    e?.name === 'FetchFailedError' ||
    e?.name === 'RequestAbortedError' ||
    e?.name === 'NetworkError' ||
    NETWORK.test(text)
  ) {
    const reason = (e?.cause as { code?: string } | undefined)?.code ?? e?.message ?? 'network error';
    connection?.lost(reason);
    return connection ? connection.unavailable(reason) : new ToolError('DATABASE_UNAVAILABLE', `ArangoDB is not reachable: ${reason}`);
  }
  const file = error as { syscall?: string; path?: string; code?: string };
  if (file?.syscall && file.path) {
    // Backups read and write local files: a file problem is the user's to fix, not a bug.
    return new ToolError('INTERNAL', `Could not ${file.syscall} ${file.path}: ${file.code ?? e?.message}`, {
      details: { path: file.path, code: file.code },
      hint: 'Check that the folder exists and is writable (or readable, for a restore).',
    });
  }
  return new ToolError('INTERNAL', `Unexpected error: ${e?.message ?? String(error)}`, {
    hint: 'This is a bug in mcpkit; please report it with the call you made.',
  });
}

function hintFor(errorNum: number): string | undefined {
  switch (errorNum) {
    case 1203:
      return 'arango_list_collections shows the collections; arango_create_collection makes one.';
    case 1202:
      return 'Check the _key (or _id); arango_query can look documents up.';
    case 1210:
      return 'A unique index already has a document with these values.';
    case 1501:
      return 'Fix the AQL syntax near the position given.';
    case 1551:
    case 1552:
      return 'Every @name in the query needs a bind_vars entry, and every bind_vars entry a @name in the query.';
    case 11:
      return 'Check ARANGO_USERNAME / ARANGO_PASSWORD (or arango.username / arango.password).';
    case 1228:
      return 'Check ARANGO_DB (or arango.database); the database must exist.';
    default:
      return undefined;
  }
}
