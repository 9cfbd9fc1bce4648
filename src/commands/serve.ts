import { Flags } from '@oclif/core';
import { CONFIG_FLAG, McpkitCommand } from '../cli/base-command.js';
import { EXPOSURES } from '../config/schema/defaults.js';

export default class Serve extends McpkitCommand {
  static override summary = "Serve mcpkit tools and the upstream servers' to MCP clients, over stdio or streamable HTTP (--http).";
  static override description =
    'Speaks MCP on stdin/stdout (nothing else is written to stdout); logs go to stderr (MCPKIT_LOG_LEVEL=debug|info|warn|error).\nRegister it in an MCP client as the command "mcpkit" with the argument "serve". It exits when the client closes stdin, or on SIGINT/SIGTERM.';
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --config ./mcpkit.yaml',
    '<%= config.bin %> serve --http --no-eager',
    'MCPKIT_TOKEN=$(openssl rand -hex 32) <%= config.bin %> serve --http --port 8000',
    '<%= config.bin %> serve --http --token-env TEAM_GATEWAY_TOKEN',
    '<%= config.bin %> serve --read-only',
    '<%= config.bin %> serve --groups retrieve,registry',
    '<%= config.bin %> serve --exposure direct',
    '<%= config.bin %> serve --audit-log ~/.local/state/mcpkit/audit.jsonl',
    'npx @modelcontextprotocol/inspector <%= config.bin %> serve',
  ];
  static override enableJsonFlag = false;
  static override baseFlags = { config: CONFIG_FLAG };
  static override flags = {
    view: Flags.string({
      description:
        "Serve this view from tool_views instead of the default (mcpkit's tools and every enabled server). Stdio only: over --http every view has its own route, /view/NAME/mcp.",
    }),
    eager: Flags.boolean({
      description:
        'Start the upstream servers with serve, so the first tools/list does not wait for them (default: serve.eager, else yes; over --http, "listening" is said once they are connected; over stdio as the opening request of the client is read, with the connections it uses). --no-eager: each starts on first use.',
      allowNo: true,
    }),
    http: Flags.boolean({ description: 'Serve streamable HTTP instead of stdio: /mcp, /view/{name}/mcp, /views, /views/{name}, /health.' }),
    host: Flags.string({ description: 'Address to bind with --http (default: serve.host, else 127.0.0.1).' }),
    port: Flags.string({ description: 'Port with --http (default: serve.port, else 8000; 0 picks a free one).' }),
    token: Flags.string({
      description:
        'Bearer token HTTP clients must send (default: the variable --token-env names, else MCPKIT_TOKEN, else serve.token). A token on the command line shows in ps: prefer --token-env. For OAuth access tokens from an authorization server, set serve.auth in the config.',
    }),
    'token-env': Flags.string({
      description: 'With --http: the environment variable holding the bearer token (default MCPKIT_TOKEN), so the token never shows in ps.',
    }),
    'read-only': Flags.boolean({ description: "Serve only tools that declare readOnlyHint: true, mcpkit's own and the upstream servers'." }),
    groups: Flags.string({
      description:
        "mcpkit's own tool groups to serve, comma-separated (default: serve.groups, else all): config, server, view, filter, retrieve, registry, arango.",
    }),
    exposure: Flags.string({
      description:
        "How every view lists its tools (default: the view's exposure, else serve.exposure, else auto). auto: every tool while tools/list fits the token budget, else search meta-tools plus the most used tools; direct: every tool; search: meta-tools only; code: search and describe answering with TypeScript declarations, and run_code, which runs a script against the tools.",
      options: [...EXPOSURES],
    }),
    'token-budget': Flags.string({
      description:
        "Most tokens (bytes/4) tools/list may cost under exposure auto, for every view (default: the view's token_budget, else serve.token_budget, else 4000).",
    }),
    'audit-log': Flags.string({
      description:
        'Append one JSON line per tools/call, prompts/get and resources/read to this file (0600, rotated by size; default: serve.audit_log). Read it with "mcpkit stats".',
    }),
    'allow-origin': Flags.string({
      description: 'With --http: a browser Origin allowed besides loopback ones (repeatable; also serve.allowed_origins).',
      multiple: true,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    // Imported here so no other command pays for the MCP server code.
    const { runServe } = await import('../mcp/run-serve.js');
    const { serveOptionsOf } = await import('../cli/args/serve-args.js');
    const { json: _json, ...serveFlags } = flags as typeof flags & { json?: boolean };
    await runServe(serveOptionsOf(serveFlags, this.config.version));
  }
}
