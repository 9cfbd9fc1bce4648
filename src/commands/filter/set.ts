import { Args, Flags } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';
import { ruleFlags } from '../../cli/args/filter-flags.js';
import { parseFilterArgs } from '../../cli/args/filter-args.js';
import { summaryOf } from '../../tool/define.js';
import { filterSet } from '../../tools/filter/set.js';

/** Hand-written around the filter_set tool: the rules' order comes from the command line, which oclif's flags lose. */
export default class FilterSet extends McpkitCommand {
  static readonly tool = filterSet;
  /** The tool's `rules` are the ordered --include/--exclude flags here. */
  static readonly fieldWords = { rules: '--include/--exclude' };
  static override summary = summaryOf(filterSet);
  static override description = filterSet.description.split('\n').slice(1).join('\n');
  static override examples = [...filterSet.command.examples];
  static override args = { server: Args.string({ description: 'Name of the server in mcp_servers.', required: true }) };
  static override flags = { ...ruleFlags, clear: Flags.boolean({ description: 'Remove the rules: everything passes.' }) };

  async run(): Promise<unknown> {
    const { rules } = parseFilterArgs(this.argv);
    const { args, flags } = await this.parse(FilterSet);
    return this.runTool(filterSet, { server: args.server, rules, clear: flags.clear }, flags.config);
  }
}
