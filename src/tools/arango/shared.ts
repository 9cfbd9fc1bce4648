import type { Database } from 'arangojs';
import type * as z from 'zod';
import { defaultBackupDir } from '../../config/schema/defaults.js';
import { ToolError } from '../../core/errors.js';
import { addSecrets } from '../../core/redact.js';
import { defineTool, type ToolAnnotations, type ToolDefinition } from '../../tool/define.js';
import type { ToolContext } from '../../tool/context.js';
import type { ArangoConnection } from '../../arango/connection.js';
import { readOnlyFrom, type ArangoSettings } from '../../arango/settings.js';

export const ARANGO_WRITE: ToolAnnotations = Object.freeze({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
export const ARANGO_DESTRUCTIVE: ToolAnnotations = Object.freeze({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });

/** The settings, read-only also when the process's policy is (serve --read-only). */
export async function arangoSettings(ctx: ToolContext): Promise<ArangoSettings> {
  const [config, { resolveArangoSettings }, { requireUsable }] = await Promise.all([
    ctx.config(),
    import('../../arango/settings.js'),
    import('../../config/check/problems.js'),
  ]);
  requireUsable(config, 'arango');
  try {
    const settings = resolveArangoSettings(config.arango, ctx.env);
    // Also when they came from ARANGO_PASSWORD or an ARANGO_URL with a password in it.
    const { secretValues } = await import('../../config/secrets/mask.js');
    addSecrets(secretValues({ password: settings.password, urls: settings.urls }, []));
    return ctx.policy.readOnly ? { ...settings, readOnly: true } : settings;
  } catch (error) {
    throw new ToolError('VALIDATION_ERROR', (error as Error).message);
  }
}

/**
 * The process's connection: one for the life of `serve` (kept in the process cache, started in the
 * background when serve starts) while the settings stay the same; a reloaded config with other
 * settings gets a new one (the old one is closed). A fresh one per terminal command, which tries
 * once and reports DATABASE_UNAVAILABLE at once instead of waiting through the start-up retries.
 */
export async function connectionFor(ctx: ToolContext): Promise<ArangoConnection> {
  const [settings, { ArangoConnection }, { stableJson }] = await Promise.all([
    arangoSettings(ctx),
    import('../../arango/connection.js'),
    import('../../core/stable-json.js'),
  ]);
  if (!ctx.cache) return new ArangoConnection({ ...settings, connectRetries: 1 }, ctx.logger);
  const key = stableJson(settings);
  const held = ctx.cache.get(CONNECTION_KEY) as { key: string; connection: ArangoConnection } | undefined;
  if (held?.key === key) return held.connection;
  held?.connection.lost('the arango settings changed');
  const connection = new ArangoConnection(settings, ctx.logger);
  ctx.cache.set(CONNECTION_KEY, { key, connection });
  return connection;
}

const CONNECTION_KEY = 'arango.connection';

/** For serve: connect in the background at start when a database is configured (the group's onServe). */
export async function startArango(ctx: ToolContext): Promise<void> {
  const settings = await arangoSettings(ctx).catch(() => undefined);
  if (settings?.configured) (await connectionFor(ctx)).start();
}

/**
 * The folder a backup tool may write (or a restore read): `requested` (or `fallback`) inside the
 * backup folder (ARANGO_BACKUP_DIR, arango.backup_dir, else $XDG_STATE_HOME/mcpkit/backups),
 * never outside it, so an agent cannot have files written anywhere on the machine.
 */
export async function backupFolder(ctx: ToolContext, requested: string | undefined, fallback: string): Promise<{ base: string; folder: string }> {
  const [config, { dirname, resolve, sep }, { homedir }, { isInside }] = await Promise.all([
    ctx.config(),
    import('node:path'),
    import('node:os'),
    import('../../retrieve/paths.js'),
  ]);
  const base = ctx.env.ARANGO_BACKUP_DIR
    ? resolve(ctx.cwd, ctx.env.ARANGO_BACKUP_DIR)
    : config.arango.backup_dir
      ? resolve(dirname(ctx.configLocation.path), config.arango.backup_dir)
      : defaultBackupDir(ctx.env, homedir());
  const folder = resolve(base, requested ?? fallback);
  if (folder !== base && !isInside(base, folder, sep)) {
    throw new ToolError('FORBIDDEN', `${requested} is outside the backup folder ${base}; backups are written and read there only.`, {
      details: { folder: requested, backup_dir: base },
      hint: 'Give a folder inside it (a relative name is taken inside it), or set arango.backup_dir / ARANGO_BACKUP_DIR.',
    });
  }
  return { base, folder };
}

export interface ArangoCall {
  db: Database;
  connection: ArangoConnection;
  settings: ArangoSettings;
  ctx: ToolContext;
  /** A database call under the configured timeout. */
  timed<T>(promise: Promise<T>): Promise<T>;
}

/** Every row of a query the tool itself wrote (all values bound), under the timeout. */
export async function queryAll<T>(call: ArangoCall, query: string, bindVars: Record<string, unknown>): Promise<T[]> {
  const cursor = await call.timed(call.db.query(query, bindVars, { batchSize: 1000 }));
  return (await call.timed(cursor.all())) as T[];
}

type ArangoToolDefinition<S extends z.ZodObject, R> = Omit<ToolDefinition<S, R>, 'group' | 'run' | 'invalidInputCode' | 'available'> & {
  /** Writing tools are hidden over MCP and refused in the terminal in read-only mode. */
  writes: boolean;
  /** An answer that needs no database for this input (build-query --no-execute), or undefined to connect. */
  offline?(input: z.output<S>): Promise<R | undefined>;
  run(input: z.output<S>, call: ArangoCall): Promise<R>;
};

/** An arango tool: the group's validation code, read-only handling, connection and error mapping in one place. */
export function defineArangoTool<S extends z.ZodObject, R>(def: ArangoToolDefinition<S, R>): ToolDefinition<S, R> {
  const { writes, run, offline, ...rest } = def;
  return defineTool<S, R>({
    ...rest,
    group: 'arango',
    invalidInputCode: 'VALIDATION_ERROR',
    ...(writes ? { available: (config, env) => !readOnlyFrom(config.arango, env) } : {}),
    async run(input, ctx) {
      const answer = await offline?.(input);
      if (answer !== undefined) return answer;
      const connection = await connectionFor(ctx);
      const settings = connection.settings;
      if (writes && settings.readOnly) {
        throw new ToolError('READ_ONLY', `${def.name} writes to the database, and mcpkit is in read-only mode.`, {
          hint: 'Turn off arango.read_only (or ARANGO_READ_ONLY), or serve without --read-only, to write.',
        });
      }
      const { toToolError, withDatabaseTimeout } = await import('../../arango/connection.js');
      try {
        const db = await connection.database();
        return await run(input, { db, connection, settings, ctx, timed: (promise) => withDatabaseTimeout(promise, settings.timeoutMs, settings) });
      } catch (error) {
        throw toToolError(error, connection);
      }
    },
  });
}
