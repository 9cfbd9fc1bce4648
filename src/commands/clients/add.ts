import { Args, Flags } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';
import { issueToken, showToken } from '../../cli/gateway/issued-token.js';

export default class ClientsAdd extends McpkitCommand {
  static override summary = 'Add a named client of "serve --http" with a new token: the token is shown once, the config keeps only its SHA-256.';
  static override description =
    'Makes a random token (mcpk_...), prints it once on stdout (the rest on stderr, so TOKEN=$(mcpkit clients add ...) holds only the token) and writes serve.clients.NAME with token_sha256, its routes, tool rules and limits. A running serve takes the client at once. Without --view the client may use every route.';
  static override examples = [
    '<%= config.bin %> clients add alice --view research',
    '<%= config.bin %> clients add ci-bot --view research --read-only --rate 30/min --max-concurrent 2 --expires 30d',
    '<%= config.bin %> clients add triage --tools "+ github__list_*" --tools "- *" --json',
    `<%= config.bin %> clients add release-bot --condition 'github__create_issue=args.repo in ["acme/app", "acme/docs"]'`,
    'export ALICE_TOKEN=$(<%= config.bin %> clients add alice --view research)',
  ];
  static override args = {
    name: Args.string({ description: 'The client\'s name: letters, digits, "_", "." and "-". The audit log and /metrics name it.', required: true }),
  };
  static override flags = {
    view: Flags.string({
      description: 'A route it may use: a view of tool_views, or "default" for /mcp (repeat for more; default: every route).',
      multiple: true,
    }),
    tools: Flags.string({ description: 'A tool rule, "+ GLOB" allows, "- GLOB" refuses, first match wins (repeat, in order).', multiple: true }),
    'read-only': Flags.boolean({ description: 'Only tools that declare readOnlyHint.' }),
    rate: Flags.string({ description: 'Most calls per second or minute, e.g. 10/s or 30/min.' }),
    'max-concurrent': Flags.integer({ description: 'Most calls in flight at once.', min: 1 }),
    expires: Flags.string({
      description:
        'When the token stops working: a duration in s, m, h or d (30d), a date (2026-12-31, its start in UTC) or an ISO time; written as an ISO time.',
    }),
    condition: Flags.string({
      description:
        'A condition on arguments, GLOB=EXPR: calls of the tools the glob matches go through only when the CEL expression is true (repeat for more).',
      multiple: true,
    }),
  };

  async run(): Promise<{ name: string; token: string; config: string; token_expires?: string }> {
    const { args, flags } = await this.parse(ClientsAdd);
    const [{ addIssuedClient }, { expiryOf }] = await Promise.all([import('../../config/edits/clients-edit.js'), import('../../config/edits/token-life.js')]);
    const now = Date.now();
    const expires = flags.expires !== undefined ? expiryOf(flags.expires, now) : 'never';
    const { conditionFlags } = await import('../../cli/args/condition-flags.js');
    const conditions = conditionFlags(flags.condition);
    const spec = {
      ...(conditions ? { conditions } : {}),
      ...(expires !== 'never' ? { token_expires: expires } : {}),
      ...(flags.view ? { views: flags.view } : {}),
      ...(flags.tools ? { tools: flags.tools } : {}),
      ...(flags['read-only'] ? { read_only: true } : {}),
      ...(flags.rate !== undefined ? { rate: flags.rate } : {}),
      ...(flags['max-concurrent'] !== undefined ? { max_concurrent: flags['max-concurrent'] } : {}),
    };
    const { token, path } = await issueToken(this.toolContext(flags.config), (doc, digest) => addIssuedClient(doc, args.name, spec, digest, now));
    const life = expires !== 'never' ? `; the token expires at ${expires}` : '';
    if (!this.jsonEnabled())
      showToken(this.scope.io, token, `Client ${args.name} added to ${path}${flags.view ? `, routes: ${flags.view.join(', ')}` : ', every route'}${life}.`);
    return { name: args.name, token, config: path, ...(expires !== 'never' ? { token_expires: expires } : {}) };
  }
}
