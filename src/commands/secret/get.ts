import { Args, Flags } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';
import { ToolError } from '../../core/errors.js';

export default class SecretGet extends McpkitCommand {
  static override summary = 'Print a secret of the system keyring: to a terminal, or anywhere with --reveal.';
  static override examples = ['<%= config.bin %> secret get GITHUB_TOKEN', 'GH=$(<%= config.bin %> secret get GITHUB_TOKEN --reveal)'];
  static override args = { name: Args.string({ description: "The secret's name, as in ${keyring:NAME}.", required: true }) };
  static override flags = {
    reveal: Flags.boolean({ description: 'Print the value where stdout is not a terminal (a pipe, a file, --json).' }),
  };

  async run(): Promise<{ name: string; value?: string }> {
    const { args, flags } = await this.parse(SecretGet);
    const toTerminal = !this.scope.hosted && process.stdout.isTTY === true && !this.jsonEnabled();
    // A value printed into a pipe or a log by accident is a leaked one: only a person asks without a terminal.
    if (!toTerminal && !flags.reveal) {
      throw new ToolError('FORBIDDEN', `The value of ${args.name} is printed to a terminal only.`, {
        hint: `Pass --reveal to print it into a pipe or file: mcpkit secret get ${args.name} --reveal`,
      });
    }
    const { systemKeyring } = await import('../../config/secrets/keyring.js');
    const value = await systemKeyring().get(args.name);
    if (value === undefined) {
      throw new ToolError('NOT_FOUND', `The system keyring has no secret ${args.name}.`, {
        hint: `List them with: mcpkit secret list; set it with: mcpkit secret set ${args.name}`,
      });
    }
    if (!this.jsonEnabled()) this.scope.io.out(`${value}\n`);
    return { name: args.name, value };
  }
}
