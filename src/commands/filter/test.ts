import { McpkitCommand } from '../../cli/base-command.js';
import { parseFilterArgs } from '../../cli/filter-args.js';
import { ruleFlags, upstreamFlags } from '../../cli/filter-flags.js';
import { upstreamConfig } from '../../cli/filter-upstream.js';
import { compileFilter, explainDecision, type FilterRule } from '../../proxy/filter.js';

interface Decision {
  kind: 'tool' | 'prompt' | 'resource';
  name: string;
  passes: boolean;
  because: string;
}

export default class FilterTest extends McpkitCommand {
  static override summary = 'Preview which tools, prompts and resources of a server pass the rules, and which rule decided.';
  static override examples = [
    '<%= config.bin %> filter test --exclude "browser_close" --include "browser_*" -- npx -y @playwright/mcp',
    '<%= config.bin %> filter test --include "read_*" --json -- npx -y @modelcontextprotocol/server-memory',
  ];
  static override strict = false;
  static override flags = { ...ruleFlags, ...upstreamFlags };

  async run(): Promise<{ rules: FilterRule[]; passing: number; hidden: number; decisions: Decision[] }> {
    // Before oclif's parser, so a quoted "--include pattern" gets its own explanation.
    const { rules, command } = parseFilterArgs(this.argv);
    const { flags } = await this.parse(FilterTest);
    const config = upstreamConfig(command, flags.url, flags.header, []);
    const context = this.toolContext(flags.config);
    return context.servers.with('upstream', config, async (upstream) => {
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
        const { createRenderUi } = await import('../../cli/render.js');
        const ui = createRenderUi(this.color);
        const rows = decisions.map((d) => ({ ...d, passes: d.passes ? ui.color.green('yes') : ui.color.red('no') }));
        this.print(`${ui.table(rows, ['kind', 'name', 'passes', 'because'])}\n\n${passing} of ${decisions.length} pass`);
      }
      return { rules, passing, hidden: decisions.length - passing, decisions };
    });
  }
}
