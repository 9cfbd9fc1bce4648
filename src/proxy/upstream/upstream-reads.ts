import { ProtocolError } from '@modelcontextprotocol/client';
import { EmptyResultSchema } from '@modelcontextprotocol/core';
import type {
  Client,
  CompleteRequest,
  CompleteResult,
  GetPromptResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
} from '@modelcontextprotocol/client';
import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { modernParams, type ModernRequest } from '../eras/era.js';
import { allPages } from './server-requests.js';
import type { ListenStream } from '../eras/listen-stream.js';
import type { UpstreamConnection } from './upstream-connection.js';

/**
 * What a view asks of one server besides its tools (`Upstream.reads`): prompts, resources,
 * templates and completions read through, and what its clients asked the server to send them
 * (a log level, resource subscriptions, roots).
 */
export interface UpstreamReads {
  readonly name: string;
  listPrompts(): Promise<Prompt[]>;
  getPrompt(name: string, args: Record<string, string> | undefined, modern?: ModernRequest): Promise<GetPromptResult>;
  listResources(): Promise<Resource[]>;
  listResourceTemplates(): Promise<ResourceTemplateType[]>;
  readResource(uri: string, modern?: ModernRequest): Promise<ReadResourceResult>;
  /** completion/complete; no candidates from a server that does not complete. */
  complete(params: CompleteRequest['params']): Promise<CompleteResult>;
  /** The log level the downstream asked for: sent now when connected, else once connected, to a server that logs. */
  setLoggingLevel(level: LoggingLevel): Promise<void>;
  /** resources/subscribe or unsubscribe; false for a server that does not take subscriptions. */
  subscription(uri: string, on: boolean): Promise<boolean>;
  /** The downstream client's roots changed: tell the server, if connected and offered them. */
  rootsChanged(): Promise<void>;
}

/** Results are passed through as the upstream produced them: no second validation on the hot path. */
const PassThroughResult = z.looseObject({});

/**
 * The requests an upstream passes through as its server answers them (prompts, resources,
 * templates, completions), with failures in mcpkit's words; and the two ways every request of an
 * upstream fails or pages (`request`, `paged`).
 */
export class ReadThrough implements UpstreamReads {
  private wantedLevel?: LoggingLevel;

  constructor(
    readonly name: string,
    private readonly connection: UpstreamConnection,
    /** The subscriptions/listen stream of a 2026 server (list changes and subscribed resources). */
    private readonly listening: ListenStream,
  ) {}

  private get timeoutMs(): number {
    return this.connection.timeoutMs;
  }

  async listPrompts(): Promise<Prompt[]> {
    const client = await this.connection.connect();
    if (!client.getServerCapabilities()?.prompts) return [];
    return this.paged((cursor) =>
      client.listPrompts(cursor ? { cursor } : undefined, { timeout: this.timeoutMs }).then((r) => ({ items: r.prompts, next: r.nextCursor })),
    );
  }

  async getPrompt(name: string, args: Record<string, string> | undefined, modern?: ModernRequest): Promise<GetPromptResult> {
    const client = await this.connection.connectOrUnavailable();
    return this.request(`prompt ${name}`, () => this.relayable(client, 'prompts/get', { name, arguments: args }, modern) as Promise<GetPromptResult>);
  }

  /** A request that a 2026-07-28 client may have to answer with input (MRTR), relayed as the SDK client's own otherwise. */
  private relayable(client: Client, method: 'prompts/get' | 'resources/read', params: Record<string, unknown>, modern?: ModernRequest): Promise<unknown> {
    const relayed = modern && client.getProtocolEra() === 'modern' ? modernParams(modern, this.connection.options.config) : undefined;
    if (!relayed)
      return method === 'prompts/get'
        ? client.getPrompt(params as never, { timeout: this.timeoutMs })
        : client.readResource(params as never, { timeout: this.timeoutMs });
    return client.request({ method, params: { ...params, ...relayed } } as never, PassThroughResult, { timeout: this.timeoutMs, allowInputRequired: true });
  }

  async listResources(): Promise<Resource[]> {
    const client = await this.connection.connect();
    if (!client.getServerCapabilities()?.resources) return [];
    return this.paged((cursor) =>
      client.listResources(cursor ? { cursor } : undefined, { timeout: this.timeoutMs }).then((r) => ({ items: r.resources, next: r.nextCursor })),
    );
  }

  async listResourceTemplates(): Promise<ResourceTemplateType[]> {
    const client = await this.connection.connect();
    if (!client.getServerCapabilities()?.resources) return [];
    return this.paged((cursor) =>
      client
        .listResourceTemplates(cursor ? { cursor } : undefined, { timeout: this.timeoutMs })
        .then((r) => ({ items: r.resourceTemplates, next: r.nextCursor })),
    );
  }

  async readResource(uri: string, modern?: ModernRequest): Promise<ReadResourceResult> {
    const client = await this.connection.connectOrUnavailable();
    return this.request(`resource ${uri}`, () => this.relayable(client, 'resources/read', { uri }, modern) as Promise<ReadResourceResult>);
  }

  async complete(params: CompleteRequest['params']): Promise<CompleteResult> {
    const client = await this.connection.connectOrUnavailable();
    if (!client.getServerCapabilities()?.completions) return { completion: { values: [], hasMore: false } };
    return this.request('completion/complete', () => client.request({ method: 'completion/complete', params }, { timeout: this.timeoutMs }));
  }

  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    this.wantedLevel = level;
    const { state, client } = this.connection;
    if (state === 'ready' && client) await this.sendLevel(client);
  }

  /** The level asked for, to a connection that logs (a 2026 server has no session level to set). */
  async sendLevel(client: Client): Promise<void> {
    const level = this.wantedLevel;
    if (!level || !client.getServerCapabilities()?.logging || client.getProtocolEra() === 'modern') return;
    await this.request('logging/setLevel', () => client.request({ method: 'logging/setLevel', params: { level } }, { timeout: this.timeoutMs }));
  }

  async subscription(uri: string, on: boolean): Promise<boolean> {
    const client = await this.connection.connectOrUnavailable();
    if (client.getProtocolEra() === 'modern') return this.listening.subscription(client, uri, on);
    if (!client.getServerCapabilities()?.resources?.subscribe) return false;
    const method = on ? 'resources/subscribe' : 'resources/unsubscribe';
    await this.request(`${method} ${uri}`, () => client.request({ method, params: { uri } }, EmptyResultSchema, { timeout: this.timeoutMs }));
    return true;
  }

  async rootsChanged(): Promise<void> {
    if (!this.connection.capabilitySet?.split(',').includes('roots')) return;
    if (this.connection.state === 'ready') await this.connection.client?.sendRootsListChanged().catch(() => undefined);
  }

  /** A pass-through request's failure: credentials, the server gone, or its own error. */
  async request<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const auth = this.connection.authFailure(error);
      if (auth) throw auth;
      if (this.connection.state !== 'ready') throw this.connection.unavailable();
      // The server's own protocol error, for a 2026-07-28 client to act on (see Upstream.call).
      if (error instanceof ProtocolError && this.connection.client?.getProtocolEra() === 'modern') throw error;
      throw new ToolError('UPSTREAM_ERROR', `Server "${this.name}" failed ${what}: ${(error as Error).message}`, { details: { server: this.name } });
    }
  }

  paged<T>(page: (cursor?: string) => Promise<{ items: T[]; next?: string }>): Promise<T[]> {
    return allPages(page, (error) => this.connection.authFailure(error) ?? error);
  }
}
