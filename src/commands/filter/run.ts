import { createRuntime } from '../../app/runtime.js';
import { CONFIG_FLAG, McpkitCommand } from '../../cli/base-command.js';
import { parseFilterArgs } from '../../cli/args/filter-args.js';
import { ruleFlags, upstreamFlags } from '../../cli/args/filter-flags.js';
import { upstreamConfig } from '../../cli/args/filter-upstream.js';

/** The flags of filter run that take a value: a word after one of them is not the command. */
const VALUE_FLAGS = ['--url', '--header', '--config'];

export default class FilterRun extends McpkitCommand {
  static override summary = 'Run an MCP server behind rsync-style include/exclude filters, as a stdio MCP server.';
  static override description =
    'Filters tools, prompts and resources by name. Rules apply in the order given and the first match wins; with no match a name is hidden when any --include exists, shown otherwise. A hidden tool cannot be called. Logs go to stderr.';
  static override examples = [
    '<%= config.bin %> filter run --exclude "browser_close" --include "browser_*" -- npx -y @playwright/mcp',
    '<%= config.bin %> filter run --include "read_*" --include "list_*" -- npx -y @modelcontextprotocol/server-filesystem /tmp',
    '<%= config.bin %> filter run --exclude "*delete*" --url https://example.com/mcp --header "Authorization=Bearer $TOKEN"',
    '<%= config.bin %> filter run --include "read_*" npx -y @modelcontextprotocol/server-filesystem /tmp   # without --: from the first word that is not a flag',
  ];
  static override strict = false;
  static override enableJsonFlag = false;
  static override baseFlags = { config: CONFIG_FLAG };
  static override flags = { ...ruleFlags, ...upstreamFlags };

  async run(): Promise<void> {
    // Before oclif's parser, so a quoted "--include pattern" gets its own explanation.
    const { rules, command, rest } = parseFilterArgs(this.argv, { valueFlags: VALUE_FLAGS });
    // oclif reads the flags that are left; the command's own words are never its.
    this.argv = [...rest];
    const { flags } = await this.parse(FilterRun);
    const config = upstreamConfig(command, flags.url, flags.header, rules);
    // A stdio MCP server for an agent, like serve (the agent's surface), kept up: its upstream reconnects.
    const runtime = createRuntime({ configFlag: flags.config, surface: 'mcp', longLived: true, version: this.config.version });
    const { serveStdio } = await import('../../mcp/stdio.js');
    const view = {
      exposure: 'direct' as const,
      tokenBudget: 0,
      pins: [],
      servers: [{ name: 'upstream', config }],
      local: [],
      composites: [],
      hooks: [],
      separator: null,
      readOnly: false,
      // A server named on the command line, not in a config: there is no lock file to pin it in.
      pinning: 'off' as const,
    };
    let hub: Awaited<ReturnType<typeof runtime.serving.openHub>> | undefined;
    try {
      // One client, so the connection is its own: what the server asks reaches it.
      await serveStdio({
        runtime,
        hasServers: true,
        hub: (era) => async (downstream) => (hub = await runtime.serving.openHub(view, { era, ...(downstream ? { downstream } : {}) })),
      });
    } finally {
      await hub?.close();
    }
    process.exit(0);
  }
}
