import { shellQuote } from '../../tool/command-line.js';

/** The clients `view install` writes a snippet for. */
export const INSTALL_CLIENTS = ['claude', 'claude-code', 'cursor', 'vscode', 'mcporter'] as const;
export type InstallClient = (typeof INSTALL_CLIENTS)[number];

export interface Snippet {
  /** Where the snippet goes. */
  file: string;
  snippet: Record<string, unknown>;
  /** Variables whose values the person must write in by hand (the client does not expand references). */
  fill_in: string[];
  /** The client's own command that adds the same entry, where it has one. */
  command_line?: string;
}

const placeholder = (v: string) => `<the value of ${v}>`;

/**
 * One client's snippet that starts `mcpkit serve` over stdio. Each variable goes in its "env": as
 * a reference the client expands where it does so (VS Code's and Cursor's ${env:NAME}; Claude Code's and
 * mcporter's ${NAME}), else as a placeholder to fill in (`fill_in`). Pure.
 */
export function stdioSnippet(client: InstallClient, key: string, command: string, args: readonly string[], variables: readonly string[]): Snippet {
  const env = (value: (name: string) => string) => (variables.length ? { env: Object.fromEntries(variables.map((v) => [v, value(v)])) } : {});
  switch (client) {
    case 'claude':
      return { file: 'claude_desktop_config.json', snippet: { mcpServers: { [key]: { command, args, ...env(placeholder) } } }, fill_in: [...variables] };
    case 'cursor':
      return {
        file: '.cursor/mcp.json (or ~/.cursor/mcp.json)',
        // Cursor expands ${env:NAME} in command, args, env, url and headers, as VS Code does.
        snippet: { mcpServers: { [key]: { command, args, ...env((v) => `\${env:${v}}`) } } },
        fill_in: [],
      };
    case 'vscode':
      return { file: '.vscode/mcp.json', snippet: { servers: { [key]: { type: 'stdio', command, args, ...env((v) => `\${env:${v}}`) } } }, fill_in: [] };
    case 'claude-code': {
      // '${NAME}' as written: .mcp.json keeps the reference (Claude Code expands it), never the secret.
      const envFlags = variables.map((v) => `-e ${shellQuote(`${v}=\${${v}}`)}`);
      return {
        file: '.mcp.json (project scope)',
        snippet: { mcpServers: { [key]: { type: 'stdio', command, args, ...env((v) => `\${${v}}`) } } },
        fill_in: [],
        command_line: ['claude mcp add --scope project', ...envFlags, key, '--', ...[command, ...args].map(shellQuote)].join(' '),
      };
    }
    case 'mcporter': {
      const envFlags = variables.map((v) => `--env ${shellQuote(`${v}=\${${v}}`)}`);
      return {
        file: 'config/mcporter.json (or ~/.mcporter/mcporter.json)',
        snippet: { mcpServers: { [key]: { command, args, ...env((v) => `\${${v}}`) } } },
        fill_in: [],
        command_line: ['mcporter config add', key, '--command', shellQuote(command), ...args.map((a) => `--arg ${shellQuote(a)}`), ...envFlags].join(' '),
      };
    }
  }
}

/**
 * The URL of a view on a gateway: a base (`https://gw.example.com`, or with a path prefix) gets
 * `/view/VIEW/mcp`; a URL that already names the route is kept. Pure.
 */
export function viewUrl(base: string, view: string): string {
  const trimmed = base.replace(/\/+$/, '');
  const route = `/view/${encodeURIComponent(view)}/mcp`;
  return trimmed.endsWith(route) ? trimmed : `${trimmed}${route}`;
}

/**
 * One client's snippet that connects to a shared `serve --http` with a bearer token read from one
 * variable (`tokenVariable`): the only secret the entry names. Claude Desktop has no remote entry in
 * its file, so it runs mcp-remote, the bridge its documentation uses, with the header from its env. Pure.
 */
export function httpSnippet(client: InstallClient, key: string, url: string, tokenVariable: string): Snippet {
  const bearer = (reference: string) => ({ Authorization: `Bearer ${reference}` });
  switch (client) {
    case 'claude':
      return {
        file: 'claude_desktop_config.json',
        snippet: {
          mcpServers: {
            // No space after "Authorization:": an argument with a space is split on some platforms (mcp-remote's README).
            [key]: {
              command: 'npx',
              args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${MCPKIT_AUTH_HEADER}'],
              env: { MCPKIT_AUTH_HEADER: `Bearer ${placeholder(tokenVariable)}` },
            },
          },
        },
        fill_in: [tokenVariable],
      };
    case 'cursor':
      return {
        file: '.cursor/mcp.json (or ~/.cursor/mcp.json)',
        snippet: { mcpServers: { [key]: { url, headers: bearer(`\${env:${tokenVariable}}`) } } },
        fill_in: [],
      };
    case 'vscode':
      return { file: '.vscode/mcp.json', snippet: { servers: { [key]: { type: 'http', url, headers: bearer(`\${env:${tokenVariable}}`) } } }, fill_in: [] };
    case 'claude-code':
      return {
        file: '.mcp.json (project scope)',
        snippet: { mcpServers: { [key]: { type: 'http', url, headers: bearer(`\${${tokenVariable}}`) } } },
        fill_in: [],
        command_line: `claude mcp add --scope project --transport http ${key} ${shellQuote(url)} --header ${shellQuote(`Authorization: Bearer \${${tokenVariable}}`)}`,
      };
    case 'mcporter':
      return {
        file: 'config/mcporter.json (or ~/.mcporter/mcporter.json)',
        snippet: { mcpServers: { [key]: { baseUrl: url, headers: bearer(`\${${tokenVariable}}`) } } },
        fill_in: [],
        command_line: `mcporter config add ${key} --url ${shellQuote(url)} --header ${shellQuote(`Authorization=Bearer \${${tokenVariable}}`)}`,
      };
  }
}
