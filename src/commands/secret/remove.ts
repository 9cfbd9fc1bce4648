import { Args } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';
import { ToolError } from '../../core/errors.js';

export default class SecretRemove extends McpkitCommand {
  static override summary = 'Remove a secret from the system keyring; a config that still names it reports it like an unset variable.';
  static override examples = ['<%= config.bin %> secret remove GITHUB_TOKEN'];
  static override args = { name: Args.string({ description: "The secret's name, as in ${keyring:NAME}.", required: true }) };

  async run(): Promise<{ name: string; removed: true }> {
    const { args } = await this.parse(SecretRemove);
    const { systemKeyring } = await import('../../config/secrets/keyring.js');
    if (!(await systemKeyring().remove(args.name))) {
      throw new ToolError('NOT_FOUND', `The system keyring has no secret ${args.name}.`, { hint: 'List them with: mcpkit secret list' });
    }
    if (!this.jsonEnabled()) this.scope.io.err(`Secret ${args.name} removed from the system keyring.\n`);
    return { name: args.name, removed: true };
  }
}
