import type { Tool } from '@modelcontextprotocol/server';
import type { UpstreamOAuth } from '../auth/upstream-oauth.js';
import type { McpkitConfig, ServerConfig } from '../config/schema/schema.js';
import type { OwnFiles } from '../config/files/own-files.js';
import { withheldFrom } from '../config/server-env.js';
import { NO_RECONNECT } from '../core/backoff.js';
import type { Logger } from '../core/logger.js';
import type { ClientEra } from '../proxy/eras/era.js';
import type { DownstreamRelay, Upstream } from '../proxy/upstream/upstream.js';
import type { ConnectLimit, OneOffOptions, OneOffServer, Surface } from '../tool/context.js';
import { ToolListCache } from './tool-list-cache.js';

type UpstreamClass = typeof import('../proxy/upstream/upstream.js').Upstream;

/** How one upstream is wanted: quiet, for a single look, relaying to one client, logged in, for an era. */
export interface UpstreamWish {
  quiet?: boolean;
  oneOff?: boolean;
  downstream?: DownstreamRelay;
  oauth?: UpstreamOAuth;
  era?: ClientEra | undefined;
  /** Told each time the upstream connects (OwnHubs: a client's own connections waking). */
  woke?: () => void;
  limit?: ConnectLimit;
}

/** What the runtime knows that every upstream it makes needs. */
export interface UpstreamFactoryDeps {
  surface: Surface;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  version: string;
  /** A long-running process (serve, the daemon): upstreams reconnect, and listings are not seeded from the terminal's cache. */
  longLived: boolean;
  references: () => McpkitConfig['references'] | undefined;
  /** mcpkit's own secrets in the environment (RuntimeOptions.secretVariables), withheld from every server. */
  secrets?: readonly string[];
  waiting: (message: string) => void;
  /** RuntimeOptions.serverStderr. */
  serverStderr?: (text: string) => void;
  /** mcpkit's own files and folders (config/files/own-files.ts), which no box shows a server. */
  ownFiles?: () => OwnFiles;
  /** This process among replicas sharing serve.store: what its bridged calls' request states start with. */
  requestStateTag?: () => string | undefined;
}

/**
 * Makes upstreams with what the runtime knows: the environment a process starts with, the
 * logger, how it reconnects, and the terminal's cache of each server's listing.
 */
export class UpstreamFactory {
  private toolLists?: ToolListCache;

  constructor(private readonly deps: UpstreamFactoryDeps) {}

  /** The tools a terminal command last saw the server list (none known: undefined). */
  lastListing(name: string, config: ServerConfig): Tool[] | undefined {
    return (this.toolLists ??= new ToolListCache(this.deps.env)).read(name, config);
  }

  make(
    Upstream: UpstreamClass,
    server: { name: string; config: ServerConfig; problems?: readonly string[]; problemsHint?: string; login?: string },
    how: UpstreamWish,
  ): Upstream {
    const { env } = this.deps;
    const quiet = how.quiet && env.MCPKIT_LOG_LEVEL !== 'debug';
    // The terminal keeps each server's listing for the next command (./tool-list-cache.ts); a
    // one-shot command's catalog starts from it, so that a call starts only the server it needs.
    const cache = this.deps.surface === 'cli' ? (this.toolLists ??= new ToolListCache(env)) : undefined;
    const seed = cache && !this.deps.longLived && !how.oneOff ? cache.read(server.name, server.config) : undefined;
    return new Upstream({
      name: server.name,
      config: server.config,
      logger: this.deps.logger,
      version: this.deps.version,
      env,
      // What the rest of the config names is not this server's to see (config/server-env.ts).
      withheldEnv: () => new Set([...withheldFrom(server.name, this.deps.references()), ...(this.deps.secrets ?? [])]),
      stderr: quiet ? () => {} : (this.deps.serverStderr ?? ((line) => void process.stderr.write(line))),
      waiting: this.deps.waiting,
      ...(this.deps.ownFiles ? { ownFiles: this.deps.ownFiles } : {}),
      ...(this.deps.requestStateTag ? { requestStateTag: this.deps.requestStateTag } : {}),
      // A one-shot command reports a server that is down; only a long-running process reconnects.
      ...(how.oneOff || !this.deps.longLived ? { backoff: NO_RECONNECT } : {}),
      ...(how.downstream ? { downstream: how.downstream } : {}),
      ...(how.era ? { clientEra: how.era } : {}),
      ...(how.woke ? { woke: how.woke } : {}),
      ...(server.problems ? { problems: server.problems } : {}),
      ...(server.problemsHint ? { problemsHint: server.problemsHint } : {}),
      ...(server.login ? { login: server.login } : {}),
      ...(how.oauth ? { oauth: how.oauth } : {}),
      ...(how.limit ? { limit: how.limit } : {}),
      ...(seed ? { seedTools: seed } : {}),
      ...(cache ? { listed: (tools: Tool[]) => cache.write(server.name, server.config, tools) } : {}),
    });
  }

  /** One server of the config for a single look, never reconnecting, quiet; closed after `use` (ToolContext.servers). */
  async withOne<T>(name: string, config: ServerConfig, use: (server: OneOffServer) => Promise<T>, options: OneOffOptions = {}): Promise<T> {
    const { Upstream } = await import('../proxy/upstream/upstream.js');
    const { oauth, limit, asModernClients } = options;
    const how = {
      quiet: true,
      oneOff: true,
      ...(oauth ? { oauth: oauth as UpstreamOAuth } : {}),
      ...(limit ? { limit } : {}),
      ...(asModernClients ? { era: 'modern' as const } : {}),
    };
    const upstream = this.make(Upstream, { name, config }, how);
    try {
      return await use({
        listTools: () => upstream.listTools(),
        protocolVersion: () => upstream.protocolVersion(),
        capabilitySet: () => upstream.capabilitySet(),
        listPrompts: () => upstream.reads.listPrompts(),
        listResources: () => upstream.reads.listResources(),
        listResourceTemplates: () => upstream.reads.listResourceTemplates(),
      });
    } finally {
      await upstream.close();
    }
  }
}
