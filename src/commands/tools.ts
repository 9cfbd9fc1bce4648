import { Flags } from '@oclif/core';
import { McpkitCommand } from '../cli/base-command.js';
import { summaryOf } from '../tool/define.js';
import { listKnownTools, listUpstreamTools, type ToolListing, type UpstreamListing } from '../cli/upstream-calls.js';

export default class Tools extends McpkitCommand {
  static override summary = 'List every tool "mcpkit serve" offers: mcpkit\'s own and the upstream servers\'.';
  static override description =
    'Upstream servers in the config are started to list their tools (their group is "server:NAME"; composite tools are "composite"); --local lists only mcpkit\'s own tools without starting anything. Whether serve lists them all or some of them behind search meta-tools (exposure auto) is shown by "mcpkit view tools".';
  static override examples = [
    '<%= config.bin %> tools',
    '<%= config.bin %> tools --local',
    '<%= config.bin %> tools --cached',
    "<%= config.bin %> tools --json | jq -r '.[].name'",
  ];
  static override flags = {
    local: Flags.boolean({ description: "Only mcpkit's own tools; do not start upstream servers." }),
    cached: Flags.boolean({
      description: "Upstream tools as each server's last listing left them (kept by earlier commands); do not start upstream servers.",
      exclusive: ['local'],
    }),
    ...McpkitCommand.daemonFlags,
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
    const listing = flags.local ? local : await this.withUpstreams(local, flags.config, flags['no-daemon'], flags.cached);
    if (!this.jsonEnabled()) {
      const { createRenderUi } = await import('../cli/render.js');
      const rows = listing.map((t) => ({ ...t, read_only: t.read_only ? 'yes' : 'no' }));
      this.print(createRenderUi(this.color).table(rows, ['name', 'group', 'read_only', 'description']));
    }
    return listing;
  }

  private async withUpstreams(local: ToolListing[], configFlag: string | undefined, noDaemon: boolean, cached: boolean): Promise<ToolListing[]> {
    const runtime = this.runtime(configFlag);
    const config = await runtime.config();
    if (!Object.values(config.mcp_servers).some((s) => s.disabled !== true)) return local;
    const skip = local.map((t) => t.name);
    const upstream = cached
      ? await listKnownTools(runtime, new Set(skip))
      : (((await this.throughDaemon(runtime, { op: 'list-upstream', skip }, noDaemon)) as UpstreamListing | undefined) ??
        (await listUpstreamTools(runtime, new Set(skip))));
    for (const note of upstream.notes) process.stderr.write(`${note}\n`);
    return [...local, ...upstream.tools];
  }
}
