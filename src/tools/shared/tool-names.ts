import { field, ToolError } from '../../core/errors.js';
import type { ToolContext } from '../../tool/context.js';

/**
 * Checks tool names against what a server offers, when it can be reached in a few seconds: its
 * own names (a server's allow-list), or, with `published`, the names it publishes after its own
 * rules and renames (what a view chooses from). An unknown name is NOT_FOUND with the closest
 * ones (a typo would hide every tool); a server that cannot be reached leaves the names
 * unchecked, said in the result, since a server may be down while its config is being written.
 */
export async function checkToolNames(
  ctx: ToolContext,
  name: string,
  tools: readonly string[],
  options: { published?: boolean } = {},
): Promise<{ checked: boolean; reason?: string }> {
  const config = await ctx.config();
  const server = config.mcp_servers[name];
  if (!server || config.unusable?.[`mcp_servers.${name}`]) return { checked: false, reason: 'the server entry is not usable' }; // the edit names what is wrong
  const { shapeServerTools } = await import('../../proxy/shape.js');
  let offered: string[];
  try {
    offered = await ctx.servers.with(name, { ...server, timeout_ms: Math.min(server.timeout_ms ?? CHECK_TIMEOUT_MS, CHECK_TIMEOUT_MS) }, async (upstream) =>
      options.published ? shapeServerTools(await upstream.listTools(), server).map((t) => t.tool.name) : (await upstream.listTools()).map((tool) => tool.name),
    );
  } catch (error) {
    return { checked: false, reason: `${name} could not be reached (${error instanceof Error ? error.message.split('\n', 1)[0] : String(error)})` };
  }
  const unknown = tools.filter((tool) => !offered.includes(tool));
  if (unknown.length > 0) {
    const { closestNames } = await import('../../core/suggest.js');
    const similar = [...new Set(unknown.flatMap((tool) => closestNames(tool, offered)))];
    const what = options.published ? ' (after its own rules and renames)' : '';
    throw new ToolError(
      'NOT_FOUND',
      `Server "${name}" has no tool${unknown.length === 1 ? '' : 's'} named ${unknown.map((t) => `"${t}"`).join(', ')}${what}.`,
      {
        details: { server: name, unknown, similar, offered },
        hint: `${similar.length ? `Did you mean ${similar.join(', ')}? ` : ''}"mcpkit server test ${name}" lists its tools; pass ${field('force')} to keep the names anyway.`,
      },
    );
  }
  return { checked: true };
}

const CHECK_TIMEOUT_MS = 10_000;
