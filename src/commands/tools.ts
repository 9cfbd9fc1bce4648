import { Args, Flags } from '@oclif/core';
import { ToolError } from '../core/errors.js';
import { closestNames } from '../core/suggest.js';
import { McpkitCommand } from '../cli/base-command.js';
import { summaryOf } from '../tool/define.js';
import { fullDescription, listKnownTools, listUpstreamTools, type ToolListing, type UpstreamListing } from '../cli/upstream-calls.js';

export default class Tools extends McpkitCommand {
  static override summary = 'List every tool "mcpkit serve" offers: mcpkit\'s own and the upstream servers\'.';
  static override description =
    'Upstream servers in the config are started to list their tools (their group is "server:NAME"; composite tools are "composite"); --local lists only mcpkit\'s own tools without starting anything. Whether serve lists them all or some of them behind search meta-tools (exposure auto) is shown by "mcpkit view tools". With a NAME, one tool: its whole description and each argument of its input schema.';
  static override examples = [
    '<%= config.bin %> tools',
    '<%= config.bin %> tools --local',
    '<%= config.bin %> tools --cached',
    '<%= config.bin %> tools search',
    '<%= config.bin %> tools everything__echo --json',
    "<%= config.bin %> tools --json | jq -r '.[].name'",
  ];
  static override args = {
    name: Args.string({ description: 'One tool, by the name serve publishes it under: its description and arguments.' }),
  };
  static override flags = {
    local: Flags.boolean({ description: "Only mcpkit's own tools; do not start upstream servers." }),
    cached: Flags.boolean({
      description: "Upstream tools as each server's last listing left them (kept by earlier commands); do not start upstream servers.",
      exclusive: ['local'],
    }),
    ...McpkitCommand.daemonFlags,
  };

  async run(): Promise<ToolListing[] | ToolListing> {
    const { flags, args } = await this.parse(Tools);
    // What serve offers under this config (admin tools only when turned on), as it publishes them.
    const { inputJsonSchema } = await import('../core/schema.js');
    const local: ToolListing[] = (await this.runtime(flags.config).offeredTools()).map((tool) => ({
      name: tool.name,
      group: tool.group,
      command: `${this.config.bin} ${tool.command.id}`,
      read_only: tool.annotations.readOnlyHint,
      description: summaryOf(tool),
      ...fullDescription(tool),
      input_schema: inputJsonSchema(tool.input),
    }));
    const own = args.name === undefined ? undefined : local.find((t) => t.name === args.name);
    const listing = flags.local || own ? local : await this.withUpstreams(local, flags.config, flags['no-daemon'], flags.cached);
    if (args.name !== undefined) return this.one(listing, args.name);
    // A listing gives each description's first line; "tools NAME" gives the whole.
    for (const tool of listing) delete tool.full_description;
    if (!this.jsonEnabled()) {
      const { createRenderUi } = await import('../cli/terminal/render.js');
      const rows = listing.map((t) => ({ ...t, read_only: t.read_only ? 'yes' : 'no' }));
      this.print(createRenderUi(this.color).table(rows, ['name', 'group', 'read_only', 'description']));
    }
    return listing;
  }

  /** One tool of the listing, printed whole: NOT_FOUND with the closest names when there is none. */
  private async one(listing: readonly ToolListing[], name: string): Promise<ToolListing> {
    const tool = listing.find((t) => t.name === name);
    if (!tool) {
      const similar = closestNames(
        name,
        listing.map((t) => t.name),
      );
      throw new ToolError('NOT_FOUND', `No tool named "${name}".`, {
        details: { name, similar },
        hint: `${similar.length ? `Did you mean ${similar.map((n) => `"${n}"`).join(', ')}? ` : ''}"mcpkit tools" lists every tool.`,
      });
    }
    if (!this.jsonEnabled()) {
      const { createRenderUi } = await import('../cli/terminal/render.js');
      const { toolArguments } = await import('../cli/args/tool-arguments.js');
      const ui = createRenderUi(this.color);
      const head = [
        `${ui.color.bold(tool.name)}  ${tool.group}${tool.read_only ? '  read-only' : ''}${tool.command ? `  (${tool.command})` : ''}`,
        '',
        tool.full_description ?? tool.description,
      ];
      const rows = toolArguments(tool.input_schema);
      this.print([...head, '', rows.length ? ui.table(rows, ['argument', 'type', 'required', 'default', 'description']) : 'No arguments.'].join('\n'));
    }
    return tool;
  }

  private async withUpstreams(local: ToolListing[], configFlag: string | undefined, noDaemon: boolean, cached: boolean): Promise<ToolListing[]> {
    const runtime = this.runtime(configFlag);
    this.endUpstreamsOnInterrupt(runtime);
    const config = await runtime.config();
    if (!Object.values(config.mcp_servers).some((s) => s.disabled !== true)) return local;
    const skip = local.map((t) => t.name);
    const upstream = cached
      ? await listKnownTools(runtime, new Set(skip))
      : (((await this.throughDaemon(runtime, { op: 'list-upstream', skip }, noDaemon)) as UpstreamListing | undefined) ??
        (await listUpstreamTools(runtime, new Set(skip))));
    for (const note of upstream.notes) this.scope.io.err(`${note}\n`);
    return [...local, ...upstream.tools];
  }
}
