import { Args } from '@oclif/core';
import { McpkitCommand } from '../cli/base-command.js';
import { NAME_KINDS, type NameKind } from '../cli/completion-names.js';
import { completionNames } from '../cli/config-names.js';

export default class CompleteNames extends McpkitCommand {
  static override hidden = true;
  static override summary = "The config's names of one kind, one per line: what tab completion offers at an argument (cli/completion-names.ts).";
  static override examples = ['<%= config.bin %> complete-names servers', '<%= config.bin %> complete-names tools --config ./mcpkit.yaml'];
  static override args = {
    kind: Args.string({
      description: 'servers, views, tools (as call takes them; no server is started), clients, composites or roots (of retrieve).',
      required: true,
      options: [...NAME_KINDS],
    }),
  };

  async run(): Promise<string[]> {
    const { args, flags } = await this.parse(CompleteNames);
    // Plain command lines skip oclif (cli/complete-names-fast-path.ts); both print completionNames.
    const runtime = this.runtime(flags.config);
    const names = await completionNames(runtime.configLocation, args.kind as NameKind, () => runtime);
    if (!this.jsonEnabled()) for (const name of names) this.scope.io.out(`${name}\n`);
    return names;
  }
}
