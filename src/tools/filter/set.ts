import * as z from 'zod';
import { filterRuleSchema } from '../../config/schema/schema.js';
import { field, ToolError } from '../../core/errors.js';
import { CONFIG_WRITE, defineTool } from '../../tool/define.js';
import { editConfigFile } from '../shared/config-access.js';

export const filterSet = defineTool({
  name: 'filter_set',
  group: 'filter',
  command: {
    id: 'filter set',
    args: ['server'],
    examples: ['<%= config.bin %> filter set playwright --exclude "browser_close" --include "browser_*"', '<%= config.bin %> filter set playwright --clear'],
  },
  title: 'Store filter rules on a server',
  description:
    'Store ordered include/exclude rules on a server in the config, rsync-style: the first rule that matches a tool, prompt or resource name decides; when none matches, it is hidden if any include rule exists and shown otherwise.\nOn the command line the rules keep the order of the --include/--exclude flags; --clear removes them.',
  input: z.strictObject({
    server: z.string().min(1).describe('Name of the server in mcp_servers.'),
    rules: z.array(filterRuleSchema).default([]).describe('Ordered rules: [{"include": "browser_*"}, {"exclude": "browser_close"}].'),
    clear: z.boolean().default(false).describe('Remove the rules: everything passes.'),
  }),
  annotations: CONFIG_WRITE,
  hostAccess: 'config',
  async run(input, ctx) {
    if (input.clear === input.rules.length > 0) {
      throw new ToolError(
        'INVALID_INPUT',
        input.clear ? `Give ${field('rules')} or ${field('clear')}, not both.` : `Give at least one rule in ${field('rules')}, or ${field('clear')}.`,
      );
    }
    const { setServerFilter } = await import('../../config/edits/servers-edit.js');
    const { path } = await editConfigFile(ctx, (doc) => setServerFilter(doc, input.server, input.rules));
    return { server: input.server, rules: input.rules, config: path };
  },
  render: (r, ui) =>
    r.rules.length
      ? `${ui.color.green('✓')} ${r.server}: ${r.rules.map((rule) => ('include' in rule ? `--include "${rule.include}"` : `--exclude "${rule.exclude}"`)).join(' ')}`
      : `${ui.color.green('✓')} ${r.server}: no filter rules`,
});
