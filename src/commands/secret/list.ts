import { McpkitCommand } from '../../cli/base-command.js';

export default class SecretList extends McpkitCommand {
  static override summary = "List the names of mcpkit's secrets in the system keyring (never their values).";
  static override examples = ['<%= config.bin %> secret list', '<%= config.bin %> secret list --json'];

  async run(): Promise<{ names: string[] }> {
    await this.parse(SecretList);
    const { systemKeyring } = await import('../../config/secrets/keyring.js');
    const names = await systemKeyring().names();
    if (!this.jsonEnabled()) {
      if (names.length) this.scope.io.out(`${names.join('\n')}\n`);
      else this.scope.io.err('No secrets yet: add one with mcpkit secret set NAME.\n');
    }
    return { names };
  }
}
