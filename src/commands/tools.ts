import { Flags } from '@oclif/core';
import { McpkitCommand } from '../cli/base-command.js';
import { summaryOf } from '../tool/define.js';

export interface ToolListing {
  name: string;
  group: string;
  command?: string;
  read_only: boolean;
  description: string;
  /** The JSON Schema of its arguments, as tools/list publishes it. */
  input_schema: unknown;
}

export default class Tools extends McpkitCommand {
  static override summary = 'List every tool "mcpkit serve" offers: mcpkit\'s own and the upstream servers\'.';
  static override description =
    'Upstream servers in the config are started to list their tools (their group is "server:NAME"; composite tools are "composite"); --local lists only mcpkit\'s own tools without starting anything. Whether serve lists them all or some of them behind search meta-tools (exposure auto) is shown by "mcpkit view tools".';
  static override examples = ['<%= config.bin %> tools', '<%= config.bin %> tools --local', "<%= config.bin %> tools --json | jq -r '.[].name'"];
  static override flags = {
    local: Flags.boolean({ description: "Only mcpkit's own tools; do not start upstream servers." }),
  };

  async run(): Promise<ToolListing[]> {
    const { flags } = await this.parse(Tools);
    // What serve offers under this config (admin tools only when turned on), as it publishes them.
    const { inputJsonSchema } = await import('../core/schema.js');
    const local: ToolListing[] = (await this.runtime(flags.config).offeredTools()).map((tool) => ({
      name: tool.name,
      group: tool.group,
      command: `${this.config.bin} ${tool.command.id}`,
      read_only: tool.annotations.readOnlyHint,
      description: summaryOf(tool),
      input_schema: inputJsonSchema(tool.input),
    }));
    const listing = flags.local ? local : await this.withUpstreams(local, flags.config);
    if (!this.jsonEnabled()) {
      const { createRenderUi } = await import('../cli/render.js');
      const rows = listing.map((t) => ({ ...t, read_only: t.read_only ? 'yes' : 'no' }));
      this.print(createRenderUi(this.color).table(rows, ['name', 'group', 'read_only', 'description']));
    }
    return listing;
  }

  private async withUpstreams(local: ToolListing[], configFlag: string | undefined): Promise<ToolListing[]> {
    const runtime = this.runtime(configFlag);
    const config = await runtime.config();
    if (!Object.values(config.mcp_servers).some((s) => s.disabled !== true)) return local;
    return runtime.withHub(undefined, async (hub) => {
      const names = new Set(local.map((t) => t.name));
      // The whole catalog: under exposure search or auto, tools/list shows part of it and the rest is reached through search.
      const upstream = (await hub.catalogTools())
        .filter((t) => !names.has(t.name))
        .map((t) => ({
          name: t.name,
          group: hub.serverOf(t.name) ? `server:${hub.serverOf(t.name)}` : 'composite',
          read_only: t.annotations?.readOnlyHint === true,
          description: summaryOf(t),
          input_schema: t.inputSchema,
        }));
      for (const s of hub.status().filter((s) => s.state !== 'ready')) {
        process.stderr.write(`mcpkit: server ${s.name} ${s.state === 'needs_login' ? 'needs a login' : `is ${s.state}`}${s.error ? `: ${s.error}` : ''}\n`);
      }
      return [...local, ...upstream];
    });
  }
}
