import { McpkitCommand } from '../../cli/base-command.js';
import { parseFilterArgs } from '../../cli/args/filter-args.js';
import { ruleFlags, upstreamFlags } from '../../cli/args/filter-flags.js';
import { upstreamConfig } from '../../cli/args/filter-upstream.js';
import type { ServerConfig } from '../../config/schema/schema.js';
import { ToolError } from '../../core/errors.js';
import { unknownServer } from '../../core/suggest.js';
import { compileFilter, explainDecision, type FilterRule } from '../../proxy/catalog/filter.js';

interface Decision {
  kind: 'tool' | 'prompt' | 'resource';
  name: string;
  passes: boolean;
  because: string;
}

export default class FilterTest extends McpkitCommand {
  static override summary = 'Preview which tools, prompts and resources of a server pass the rules, and which rule decided.';
  static override description =
    'Name a server of the config to test the rules stored on it (filter set), or give rules to try on it instead; or give any server as a command after -- or --url.';
  static override examples = [
    '<%= config.bin %> filter test everything',
    '<%= config.bin %> filter test everything --exclude "*delete*"',
    '<%= config.bin %> filter test --exclude "browser_close" --include "browser_*" -- npx -y @playwright/mcp',
    '<%= config.bin %> filter test --include "read_*" --json -- npx -y @modelcontextprotocol/server-memory',
  ];
  static override strict = false;
  static override flags = { ...ruleFlags, ...upstreamFlags };

  async run(): Promise<{ rules: FilterRule[]; passing: number; hidden: number; decisions: Decision[] }> {
    // Before oclif's parser, so a quoted "--include pattern" gets its own explanation.
    const { rules: given, command } = parseFilterArgs(this.argv);
    // oclif would count the upstream's own words (after --) as arguments of ours.
    const dash = this.argv.indexOf('--');
    if (dash >= 0) this.argv = this.argv.slice(0, dash);
    const { flags, argv } = await this.parse(FilterTest);
    const context = this.toolContext(flags.config);
    const names = argv as string[];
    let config: ServerConfig;
    let rules = given;
    let name = 'upstream';
    if (names.length > 0) {
      // A server of the config: its stored rules, unless rules to try were given.
      if (names.length > 1 || command.length > 0 || flags.url !== undefined) {
        throw new ToolError('INVALID_INPUT', 'Give one server name from the config, or a command after -- (or --url), not both.');
      }
      name = names[0]!;
      const servers = (await context.config()).mcp_servers;
      const stored = servers[name];
      if (!stored) throw unknownServer(name, Object.keys(servers));
      config = { ...stored, filter: undefined };
      if (given.length === 0) rules = stored.filter ?? [];
    } else {
      config = upstreamConfig(command, flags.url, flags.header, []);
    }
    return context.servers.with(name, config, async (upstream) => {
      const [tools, prompts, resources] = await Promise.all([upstream.listTools(), upstream.listPrompts(), upstream.listResources()]);
      const filter = compileFilter(rules);
      const decide = (kind: Decision['kind'], name: string): Decision => {
        const d = filter(name);
        return { kind, name, passes: d.allowed, because: explainDecision(d) };
      };
      const decisions = [
        ...tools.map((t) => decide('tool', t.name)),
        ...prompts.map((p) => decide('prompt', p.name)),
        ...resources.map((r) => decide('resource', r.name)),
      ];
      const passing = decisions.filter((d) => d.passes).length;
      if (!this.jsonEnabled()) {
        const { createRenderUi } = await import('../../cli/terminal/render.js');
        const ui = createRenderUi(this.color);
        const rows = decisions.map((d) => ({ ...d, passes: d.passes ? ui.color.green('yes') : ui.color.red('no') }));
        this.print(`${ui.table(rows, ['kind', 'name', 'passes', 'because'])}\n\n${passing} of ${decisions.length} pass`);
      }
      return { rules, passing, hidden: decisions.length - passing, decisions };
    });
  }
}
