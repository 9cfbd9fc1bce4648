import { Flags } from '@oclif/core';
import { McpkitCommand } from '../cli/base-command.js';

export default class Serve extends McpkitCommand {
  static override summary = 'Serve mcpkit tools to an MCP client over stdio.';
  static override description =
    'Speaks MCP on stdin/stdout (nothing else is written to stdout); logs go to stderr (MCPKIT_LOG_LEVEL=debug|info|warn|error).\nRegister it in an MCP client as the command "mcpkit" with the argument "serve". It exits when the client closes stdin, or on SIGINT/SIGTERM.';
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --config ./mcpkit.yaml',
    '<%= config.bin %> serve --view research --eager',
    'npx @modelcontextprotocol/inspector <%= config.bin %> serve',
  ];
  static override enableJsonFlag = false;
  static override flags = {
    view: Flags.string({ description: 'Serve this view from tool_views instead of the default (mcpkit\'s tools and every enabled server).' }),
    eager: Flags.boolean({ description: 'Start the upstream servers now instead of on first use.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    // Imported here so no other command pays for the MCP server code.
    const { runServe } = await import('../mcp/run-serve.js');
    await runServe({ configFlag: flags.config, view: flags.view, eager: flags.eager, version: this.config.version });
  }
}
