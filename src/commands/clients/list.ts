import { McpkitCommand } from '../../cli/base-command.js';
import type { ClientsList as List } from '../../cli/gateway/clients-list.js';

export default class ClientsList extends McpkitCommand {
  static override summary =
    'The named clients of "serve --http" (serve.clients): how each is recognised, its routes, tool rules and limits; tokens never shown.';
  static override examples = ['<%= config.bin %> clients list', '<%= config.bin %> clients list --json'];

  async run(): Promise<List> {
    const { flags } = await this.parse(ClientsList);
    const { listClients, renderClients } = await import('../../cli/gateway/clients-list.js');
    const result = await listClients(this.runtime(flags.config));
    if (!this.jsonEnabled()) this.print(await renderClients(result, this.color));
    return result;
  }
}
