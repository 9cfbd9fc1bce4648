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
  const { shapeServerTools } = await import('../../proxy/catalog/shape.js');
  let offered: string[];
  try {
    offered = await ctx.servers.with(
      name,
      server,
      async (upstream) =>
        options.published
          ? shapeServerTools(await upstream.listTools(), server).map((t) => t.tool.name)
          : (await upstream.listTools()).map((tool) => tool.name),
      { limit: { ms: CHECK_TIMEOUT_MS, why: 'the check of tool names waits no longer; --force skips it' } },
    );
  } catch (error) {
    return { checked: false, reason: `${name} could not be reached (${error instanceof Error ? error.message.split('\n', 1)[0] : String(error)})` };
  }
  const unknown = tools.filter((tool) => !offered.includes(tool));
  if (unknown.length > 0) {
    throw await notOffered(unknown, offered, {
      says: (named) => `Server "${name}" has no ${named}${options.published ? ' (after its own rules and renames)' : ''}.`,
      details: { server: name, offered },
      lists: `"mcpkit server test ${name}" lists its tools`,
      keeps: 'the names',
    });
  }
  return { checked: true };
}

/** NOT_FOUND for names nothing offers, with the closest ones, the command that lists what is offered, and --force. */
async function notOffered(
  unknown: readonly string[],
  offered: readonly string[],
  words: { says: (named: string) => string; details: Record<string, unknown>; lists: string; keeps: string },
): Promise<ToolError> {
  const { closestNames } = await import('../../core/suggest.js');
  const similar = [...new Set(unknown.flatMap((name) => closestNames(name, offered)))];
  const named = `tool${unknown.length === 1 ? '' : 's'} named ${unknown.map((n) => `"${n}"`).join(', ')}`;
  return new ToolError('NOT_FOUND', words.says(named), {
    details: { ...words.details, unknown, similar },
    hint: `${similar.length ? `Did you mean ${similar.join(', ')}? ` : ''}${words.lists}; pass ${field('force')} to keep ${words.keeps} anyway.`,
  });
}

const CHECK_TIMEOUT_MS = 10_000;

/**
 * Checks a view's pins against the names the view publishes (its whole catalog, withheld tools
 * included, since approval brings those back). As with `checkToolNames`, an unknown pin is
 * NOT_FOUND with the closest names only when every server of the view answered: a pin may name a
 * tool of a server that is down while the config is written.
 */
export async function checkViewPins(ctx: ToolContext, view: string, pins: readonly string[]): Promise<{ checked: boolean; reason?: string }> {
  if (pins.length === 0) return { checked: true };
  let seen: { names: string[]; down: string[] };
  try {
    seen = await ctx.views.with(
      view,
      async (opened) => ({
        names: [...(await opened.catalogTools()).map((t) => t.name), ...opened.withheldTools().map((w) => w.name)],
        down: opened
          .status()
          .filter((s) => s.state !== 'ready')
          .map((s) => s.name),
      }),
      { quiet: true },
    );
  } catch (error) {
    return { checked: false, reason: `view ${view} could not be opened (${error instanceof Error ? error.message.split('\n', 1)[0] : String(error)})` };
  }
  const unknown = pins.filter((pin) => !seen.names.includes(pin));
  if (unknown.length === 0) return { checked: true };
  if (seen.down.length > 0) return { checked: false, reason: `${seen.down.join(', ')} could not be reached` };
  throw await notOffered(unknown, seen.names, {
    says: (named) => `View "${view}" publishes no ${named}.`,
    details: { view },
    lists: `"mcpkit view tools ${view}" lists what it publishes`,
    keeps: 'the pins',
  });
}
