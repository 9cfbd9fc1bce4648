import { Args } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';

export default class ClientsRemove extends McpkitCommand {
  static override summary = 'Remove a client of serve.clients: its token opens nothing any more, in a running serve too.';
  static override examples = ['<%= config.bin %> clients remove alice', '<%= config.bin %> clients remove alice --json'];
  static override args = { name: Args.string({ description: 'The client of serve.clients.', required: true }) };

  async run(): Promise<{ name: string; removed: true; config: string }> {
    const { args, flags } = await this.parse(ClientsRemove);
    const [{ removeClient }, { editConfigFile }] = await Promise.all([
      import('../../config/edits/clients-edit.js'),
      import('../../tools/shared/config-access.js'),
    ]);
    const { path } = await editConfigFile(this.toolContext(flags.config), (doc) => removeClient(doc, args.name));
    if (!this.jsonEnabled()) this.print(`Removed client ${args.name} from ${path}; a running serve ends its sessions.`);
    return { name: args.name, removed: true, config: path };
  }
}
