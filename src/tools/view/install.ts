import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import * as z from 'zod';
import { packageRoot } from '../../core/version.js';
import { defineTool, READ_ONLY } from '../../tool/define.js';
import type { McpkitConfig } from '../../config/schema/schema.js';
import { httpSnippet, INSTALL_CLIENTS, stdioSnippet, viewUrl } from './client-snippets.js';
import { writtenSection } from '../shared/config-access.js';
import { requireView } from './read.js';

/**
 * How a client starts mcpkit: `mcpkit` when it is on the PATH (npm link, a global install), else
 * this Node by absolute path running this install's bin/run.js, which works from a clone too.
 */
function launcher(env: NodeJS.ProcessEnv): { command: string; prefix: string[] } {
  const onPath = (env.PATH ?? '').split(delimiter).some((dir) => {
    if (!dir) return false;
    try {
      accessSync(join(dir, 'mcpkit'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return onPath ? { command: 'mcpkit', prefix: [] } : { command: process.execPath, prefix: [join(packageRoot(), 'bin/run.js')] };
}

/**
 * The variables `serve --view VIEW` over stdio needs: those of the view's own enabled servers, of
 * the serve section it reads (not its HTTP settings: agents' and the admin's tokens), and of the
 * sections of the mcpkit groups the view offers. Another view's server, a disabled one, or serve
 * --http's tokens are none of this client's business. Pure.
 */
export function variablesOfView(
  config: Pick<McpkitConfig, 'references'>,
  view: { servers?: unknown; groups?: unknown },
  /** As written: a server set aside for an unset variable keeps no `enabled` in the loaded config. */
  disabled: (server: string) => boolean,
): string[] {
  const servers = Array.isArray(view.servers) ? (view.servers as string[]) : Object.keys((view.servers as object | undefined) ?? {});
  const groups = Array.isArray(view.groups) ? (view.groups as string[]) : [];
  const units = config.references?.units ?? {};
  const needed = new Set<string>(units.serve ?? []);
  for (const server of servers) {
    if (disabled(server)) continue;
    for (const v of config.references?.servers[server] ?? []) needed.add(v);
  }
  for (const group of groups) for (const v of units[group] ?? []) needed.add(v);
  return [...needed].sort();
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const viewInstall = defineTool({
  name: 'view_install',
  group: 'view',
  command: {
    id: 'view install',
    args: ['name'],
    examples: [
      '<%= config.bin %> view install research --client claude',
      '<%= config.bin %> view install research --client claude-code',
      '<%= config.bin %> view install research --client vscode --json',
      '<%= config.bin %> view install research --client claude-code --url https://gateway.example.com --token-env RESEARCH_TOKEN',
      '<%= config.bin %> view install research --client mcporter --url http://127.0.0.1:8000',
    ],
  },
  title: 'Client config for a view',
  description:
    'Print the entry that connects an MCP client (Claude Desktop, Claude Code, Cursor, VS Code or mcporter) to a view. Without url: it starts "mcpkit serve --view NAME" over stdio, with only the environment variables that view needs (its enabled servers\' and the serve section\'s, never serve --http\'s tokens): a client started from a desktop does not inherit the shell\'s. With url: it connects to a shared "serve --http" at URL/view/NAME/mcp with the header "Authorization: Bearer ${TOKEN_ENV}" (the token "mcpkit clients add" printed). Nothing is written.',
  input: z.strictObject({
    name: z.string().min(1).describe('Name of the view.'),
    client: z.enum(INSTALL_CLIENTS).default('claude').describe('Which client the entry is for: claude (Desktop), claude-code, cursor, vscode or mcporter.'),
    url: z
      .url({ protocol: /^https?$/, error: 'url is the http(s) address of the shared serve --http, e.g. https://gateway.example.com' })
      .optional()
      .describe('The shared "serve --http" (its base URL, or the view\'s /view/NAME/mcp): the entry connects there instead of starting serve.'),
    token_env: z
      .string()
      .regex(VARIABLE, 'token_env is an environment variable name: letters, digits and "_"')
      .default('MCPKIT_GATEWAY_TOKEN')
      .describe("With url: the variable that holds the client's bearer token where the agent runs (default MCPKIT_GATEWAY_TOKEN)."),
  }),
  annotations: READ_ONLY,
  async run(input, ctx) {
    const view = await requireView(ctx, input.name);
    const key = `mcpkit-${input.name}`;
    if (input.url !== undefined) {
      const url = viewUrl(input.url, input.name);
      return {
        view: input.name,
        client: input.client,
        form: 'http' as const,
        url,
        ...httpSnippet(input.client, key, url, input.token_env),
        env_needed: [input.token_env],
      };
    }
    const { command, prefix } = launcher(ctx.env);
    const args = [...prefix, 'serve', '--view', input.name, '--config', ctx.configLocation.path];
    const { entries: servers } = await writtenSection(ctx, 'mcp_servers');
    const needed = variablesOfView(await ctx.config(), view, (server) => servers[server]?.disabled === true);
    return { view: input.name, client: input.client, form: 'stdio' as const, ...stdioSnippet(input.client, key, command, args, needed), env_needed: needed };
  },
  // The JSON alone on stdout (| jq works); where to put it, and what to fill in, on stderr.
  render: (r, ui) => {
    ui.note(ui.color.dim(`merge into ${r.file}:`));
    if (r.fill_in.length)
      ui.note(ui.color.yellow(`then put the values of ${r.fill_in.join(', ')} in place of the <...> (this client does not read your shell's environment)`));
    else if (r.form === 'http')
      ui.note(ui.color.dim(`the agent's environment needs ${r.env_needed.join(', ')}: its token (mcpkit clients add NAME prints one)`));
    if (r.command_line) ui.note(ui.color.dim(`or run: ${r.command_line}`));
    return JSON.stringify(r.snippet, null, 2);
  },
});
