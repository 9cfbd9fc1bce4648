import { McpkitCommand } from '../cli/base-command.js';
import { createRegistry } from '../core/registry.js';
import { summaryOf } from '../core/tool.js';
import { allTools } from '../tools/index.js';

export interface ToolListing {
  name: string;
  group: string;
  command: string;
  read_only: boolean;
  description: string;
}

export default class Tools extends McpkitCommand {
  static override summary = 'List the tools mcpkit serves over MCP, with their CLI commands.';
  static override examples = ['<%= config.bin %> tools', "<%= config.bin %> tools --json | jq -r '.[].name'"];

  async run(): Promise<ToolListing[]> {
    await this.parse(Tools);
    const listing = createRegistry(allTools).tools.map((tool) => ({
      name: tool.name,
      group: tool.group,
      command: `${this.config.bin} ${tool.command.id}`,
      read_only: tool.annotations.readOnlyHint,
      description: summaryOf(tool),
    }));
    if (!this.jsonEnabled()) {
      const { createRenderUi } = await import('../cli/render.js');
      const rows = listing.map((t) => ({ ...t, read_only: t.read_only ? 'yes' : 'no' }));
      this.print(createRenderUi(this.color).table(rows, ['name', 'group', 'read_only', 'description']));
    }
    return listing;
  }
}
