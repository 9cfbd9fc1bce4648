import type { CallToolResult, LoggingLevel, Tool } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createLogger } from '../../src/core/logger.js';
import type { ResolvedView } from '../../src/proxy/catalog/view.js';
import type { UpstreamCall } from '../../src/proxy/upstream/upstream.js';
import { defineTool } from '../../src/tool/define.js';

/**
 * In-process stand-ins for upstream servers, for the proxy parts that only need an upstream's
 * surface (its tools, calls, log level and subscriptions): no process, no transport.
 */
export class FakeUpstream {
  state = 'ready';
  listed = 0;
  calls: { name: string; args: unknown }[] = [];
  levels: LoggingLevel[] = [];
  subscriptions: [string, boolean][] = [];
  takesSubscriptions = true;
  ready = true;
  private release?: () => void;

  constructor(
    readonly name: string,
    public tools: Tool[],
    /** Holds listTools until `answer()`. */
    slow = false,
  ) {
    if (slow) this.gate = new Promise((resolve) => (this.release = resolve));
  }

  private gate: Promise<void> = Promise.resolve();
  private seen?: Tool[];

  answer(): void {
    this.release?.();
  }

  async listTools(): Promise<Tool[]> {
    this.listed++;
    await this.gate;
    this.seen = this.tools;
    return this.tools;
  }

  cachedTools(): Tool[] {
    return this.seen ?? [];
  }

  status(): { state: string } {
    return { state: this.state };
  }

  async call({ name, args }: UpstreamCall): Promise<CallToolResult> {
    this.calls.push({ name, args });
    return { content: [{ type: 'text', text: `${this.name}:${name}` }] };
  }

  forward(params: Record<string, unknown>, done: (result: CallToolResult) => void): () => void {
    this.calls.push({ name: String(params.name), args: params.arguments });
    done({ content: [{ type: 'text', text: `fast ${this.name}:${String(params.name)}` }] });
    return () => {};
  }

  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    this.levels.push(level);
  }

  async subscription(uri: string, on: boolean): Promise<boolean> {
    if (!this.takesSubscriptions) return false;
    this.subscriptions.push([uri, on]);
    return true;
  }
}

export const tool = (name: string, description = `${name} does things`, properties: NonNullable<Tool['inputSchema']['properties']> = {}): Tool => ({
  name,
  description,
  inputSchema: { type: 'object', properties, required: Object.keys(properties) },
});

export const localTool = defineTool({
  name: 'config_show',
  group: 'config',
  featured: 1,
  command: { id: 'config show', examples: ['x'] },
  title: 't',
  description: 'Show the config.',
  input: z.strictObject({}),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async () => ({ shown: true }),
});

export function viewOf(servers: string[], more: Partial<ResolvedView> = {}): ResolvedView {
  return {
    exposure: 'direct',
    tokenBudget: 4000,
    pinning: 'off',
    pins: [],
    servers: servers.map((name) => ({ name, config: { command: 'unused' } })),
    local: [],
    composites: [],
    hooks: [],
    readOnly: false,
    ...more,
  };
}

export function quietLogger(lines: string[] = []) {
  return createLogger('warn', (line) => void lines.push(line));
}
