import { Args, Flags } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';
import { issueToken, showToken } from '../../cli/gateway/issued-token.js';

export default class ClientsRotate extends McpkitCommand {
  static override summary = 'Give a client of serve.clients a new token: the old one is refused at once, or at the end of --grace; by a running serve too.';
  static override description =
    "Makes a new random token, prints it once on stdout and writes its SHA-256 in place of the client's token (a written token or ${VAR} included); its routes, rules and limits stay. Without --grace a running serve reloads the config and ends the sessions opened with the old token. With --grace 10m the old token keeps working on every route for 10 minutes (its SHA-256 is kept as previous_token_sha256 until previous_token_until), time for the agent to pick up the new one; then it is refused and its sessions end. The new token keeps the client's expiry unless --expires gives another.";
  static override examples = [
    '<%= config.bin %> clients rotate alice',
    'export ALICE_TOKEN=$(<%= config.bin %> clients rotate alice --grace 10m)',
    '<%= config.bin %> clients rotate alice --expires 90d --json',
  ];
  static override args = { name: Args.string({ description: 'The client of serve.clients.', required: true }) };
  static override flags = {
    grace: Flags.string({ description: 'How long the old token keeps working: a duration in s, m, h or d (default: refused at once).' }),
    expires: Flags.string({
      description: "When the new token stops working: a duration (30d), a date (2026-12-31) or an ISO time, or never (default: the client's expiry stays).",
    }),
  };

  async run(): Promise<{ name: string; token: string; config: string; previous_until?: string; token_expires?: string }> {
    const { args, flags } = await this.parse(ClientsRotate);
    const [{ rotateClientToken }, { expiryOf, graceMs }] = await Promise.all([
      import('../../config/edits/clients-edit.js'),
      import('../../config/edits/token-life.js'),
    ]);
    const now = Date.now();
    const options = {
      now,
      ...(flags.grace !== undefined ? { graceMs: graceMs(flags.grace) } : {}),
      ...(flags.expires !== undefined ? { expires: expiryOf(flags.expires, now) } : {}),
    };
    const { token, path, value } = await issueToken(this.toolContext(flags.config), (doc, digest) => rotateClientToken(doc, args.name, digest, options));
    const old = value.previous_until
      ? `the old one keeps working until ${value.previous_until}, then is refused`
      : flags.grace !== undefined
        ? 'the old one had expired and stays refused'
        : 'the old one no longer opens anything';
    const life = value.token_expires ? ` The new one expires at ${value.token_expires}.` : '';
    if (!this.jsonEnabled()) showToken(this.scope.io, token, `Client ${args.name} has a new token in ${path}; ${old}.${life}`);
    return {
      name: args.name,
      token,
      config: path,
      ...(value.previous_until ? { previous_until: value.previous_until } : {}),
      ...(value.token_expires ? { token_expires: value.token_expires } : {}),
    };
  }
}
