import * as z from 'zod';
import { secretValues } from '../../config/secrets/mask.js';
import { isHttpUrl } from '../../config/schema/schema.js';
import { addSecrets } from '../../core/redact.js';
import { ToolError } from '../../core/errors.js';
import type { ToolContext } from '../../tool/context.js';
import { READ_ONLY, type ToolAnnotations } from '../../tool/define.js';
import type { RegistryClient } from '../../registry/client.js';
import type { ChosenSource } from '../../registry/sources.js';

/** Reads a registry on the network; never changes anything. */
export const REGISTRY_READ: ToolAnnotations = Object.freeze({ ...READ_ONLY, openWorldHint: true });

export const registryField = z
  .string()
  .min(1)
  .optional()
  .describe('Registry name (default: registry.default; built in: official, pulsemcp); in a terminal also an http(s) URL, for this one command.');
export const expandFields = z
  .array(z.string().min(1))
  .optional()
  .describe('Paths kept whole when truncating, e.g. "servers[].server.description" ([] is every index).');
export const truncateField = z.boolean().optional().describe('Shorten long strings and deep objects (default: on over MCP only).');

/** The fields every reading registry tool takes: which registry, and how much of the answer to show. */
export const readingFields = { expand_fields: expandFields, registry: registryField, truncate: truncateField };

export async function registryFor(ctx: ToolContext, requested: string | undefined): Promise<{ client: RegistryClient; source: ChosenSource }> {
  const [config, { chooseSource, defaultSourceName, setAsideSource }, { RegistryClient }, { requireUsable }] = await Promise.all([
    ctx.config(),
    import('../../registry/sources.js'),
    import('../../registry/client.js'),
    import('../../config/check/problems.js'),
  ]);
  requireUsable(config, 'registry');
  const settings = config.registry;
  const name = requested ?? defaultSourceName(settings, ctx.env);
  const problems = config.unusable?.[`registry.sources.${name}`];
  if (problems) throw setAsideSource(name, problems, requested === undefined);
  const source = /^[a-z][a-z0-9+.-]*:\/\//i.test(name) ? byUrl(name, ctx) : chooseSource(settings, ctx.env, requested, ctx.session.tenants.get(name));
  addSecrets([source.apiKey ?? '', ...secretValues({ url: source.url }, [])]);
  return {
    client: new RegistryClient({
      ...source,
      timeoutMs: settings.timeout_ms,
      retries: settings.retries,
      maxResponseBytes: settings.max_response_bytes,
      onRetry: (message) => ctx.waiting(message),
    }),
    source,
  };
}

/**
 * A registry given by its URL, for one terminal command. Not over MCP: there a client could make
 * serve fetch any address its network reaches; an agent names the registries the config has.
 */
function byUrl(url: string, ctx: ToolContext): ChosenSource {
  if (ctx.surface === 'mcp') {
    throw new ToolError('INVALID_INPUT', `registry must name a configured registry over MCP, not a URL (${url}).`, {
      hint: 'Add it to the config with "mcpkit registry source add NAME URL", then name it.',
    });
  }
  if (!isHttpUrl(url)) {
    throw new ToolError('INVALID_INPUT', `--registry ${url} is not an http(s) URL.`, {
      hint: 'Give a registry name, or a URL such as https://registry.example.com.',
    });
  }
  return { name: url, url };
}

/** Auto-truncation of registry answers, on by default for a model (MCP) and off for a person (terminal). */
export async function shown<T>(value: T, input: { truncate?: boolean; expand_fields?: string[] }, ctx: ToolContext): Promise<T> {
  if (!(input.truncate ?? ctx.surface === 'mcp')) return value;
  const { truncateResponse } = await import('../../registry/truncate.js');
  return truncateResponse(value, input.expand_fields ?? []);
}

interface EntryLike {
  server: { name: string; title?: unknown; version?: unknown; packages?: unknown; remotes?: unknown };
}

/** Transport kinds an entry offers: its packages' transports and its remotes' types. */
export function transportsOf(entry: EntryLike): string[] {
  const packages = Array.isArray(entry.server.packages) ? (entry.server.packages as { transport?: { type?: string } }[]) : [];
  const remotes = Array.isArray(entry.server.remotes) ? (entry.server.remotes as { type?: string }[]) : [];
  return [...new Set([...packages.map((p) => p.transport?.type), ...remotes.map((r) => r.type)].filter((t): t is string => typeof t === 'string'))];
}

export function titleOf(entry: EntryLike): string {
  return typeof entry.server.title === 'string' && entry.server.title !== '' ? entry.server.title : entry.server.name;
}
