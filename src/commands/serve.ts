import { McpkitCommand } from '../cli/base-command.js';

export default class Serve extends McpkitCommand {
  static override summary = 'Serve mcpkit tools to an MCP client over stdio.';
  static override description =
    'Speaks MCP on stdin/stdout (nothing else is written to stdout); logs go to stderr (MCPKIT_LOG_LEVEL=debug|info|warn|error).\nRegister it in an MCP client as the command "mcpkit" with the argument "serve".';
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --config ./mcpkit.yaml',
    'npx @modelcontextprotocol/inspector <%= config.bin %> serve',
  ];
  static override enableJsonFlag = false;

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    // Imported here so no other command pays for the MCP server code.
    const [{ serveStdio }, { allTools }, { createRegistry }] = await Promise.all([
      import('../mcp/stdio.js'),
      import('../tools/index.js'),
      import('../core/registry.js'),
    ]);
    const context = this.toolContext(flags.config);
    await serveStdio({ registry: createRegistry(allTools), context: { ...context, surface: 'mcp' }, version: this.config.version });
  }
}
