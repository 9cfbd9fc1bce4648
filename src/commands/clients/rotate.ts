import { Args } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';
import { issueToken, showToken } from '../../cli/issued-token.js';

export default class ClientsRotate extends McpkitCommand {
  static override summary = 'Give a client of serve.clients a new token: the old one is refused at once, by a running serve too.';
  static override description =
    "Makes a new random token, prints it once on stdout and writes its SHA-256 in place of the client's token (a written token or ${VAR} included); its routes, rules and limits stay. A running serve reloads the config and ends the sessions opened with the old token.";
  static override examples = [
    '<%= config.bin %> clients rotate alice',
    'export ALICE_TOKEN=$(<%= config.bin %> clients rotate alice)',
    '<%= config.bin %> clients rotate alice --json',
  ];
  static override args = { name: Args.string({ description: 'The client of serve.clients.', required: true }) };

  async run(): Promise<{ name: string; token: string; config: string }> {
    const { args, flags } = await this.parse(ClientsRotate);
    const { rotateClientToken } = await import('../../config/clients-edit.js');
    const { token, path } = await issueToken(this.toolContext(flags.config), (doc, digest) => rotateClientToken(doc, args.name, digest));
    if (!this.jsonEnabled()) showToken(this.scope.io, token, `Client ${args.name} has a new token in ${path}; the old one no longer opens anything.`);
    return { name: args.name, token, config: path };
  }
}
