import { Args, Flags } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';

const UNSET_FLAGS = { views: 'views', tools: 'tools', rate: 'rate', 'max-concurrent': 'max_concurrent' } as const;

export default class ClientsSet extends McpkitCommand {
  static override summary = 'Change a client of serve.clients in place: its routes, tool rules, limits, expiry and own credentials; its token stays.';
  static override description =
    "Each flag replaces what the client has for it (--view and --tools as a whole list); --unset takes a setting back to its default (every route, every tool, no limit). Credentials are its own identity at a server: --credential 'github.GITHUB_TOKEN=${ALICE_GITHUB_TOKEN}' (a stdio server's env) or --credential 'docs.header:Authorization=Bearer ${file:/run/secrets/docs}' (a remote server's header), written as ${VAR}, ${file:PATH} or ${keyring:NAME} in single quotes. The token is not touched; a running serve applies the change to the next request and restarts the client's own connections where its credentials changed. A refused change leaves the file as it was.";
  static override examples = [
    '<%= config.bin %> clients set alice --view research --view default --rate 30/min',
    '<%= config.bin %> clients set ci-bot --read-only --expires 2026-12-31',
    '<%= config.bin %> clients set release-agent --condition \'github__create_issue=args.repo in ["acme/app"]\'',
    "<%= config.bin %> clients set release-agent --credential 'github.GITHUB_PERSONAL_ACCESS_TOKEN=${RELEASE_AGENT_GITHUB_TOKEN}'",
    '<%= config.bin %> clients set alice --unset rate --remove-credential github.GITHUB_PERSONAL_ACCESS_TOKEN --json',
  ];
  static override args = { name: Args.string({ description: 'The client of serve.clients.', required: true }) };
  static override flags = {
    view: Flags.string({ description: 'A route it may use: a view of tool_views, or "default" for /mcp (repeat; replaces its routes).', multiple: true }),
    tools: Flags.string({
      description: 'A tool rule, "+ GLOB" allows, "- GLOB" refuses, first match wins (repeat, in order; replaces its rules).',
      multiple: true,
    }),
    'read-only': Flags.boolean({ description: 'Only tools that declare readOnlyHint (--no-read-only: every tool its rules allow).', allowNo: true }),
    rate: Flags.string({ description: 'Most calls per second or minute, e.g. 10/s or 30/min.' }),
    'max-concurrent': Flags.integer({ description: 'Most calls in flight at once.', min: 1 }),
    expires: Flags.string({ description: 'When its token stops working: a duration (30d), a date (2026-12-31), an ISO time, or never.' }),
    condition: Flags.string({
      description: "A condition on arguments, GLOB=EXPR (CEL): replaces the client's condition of that glob, the others stay (repeat for more).",
      multiple: true,
    }),
    credential: Flags.string({ description: 'SERVER.ENV=VALUE or SERVER.header:NAME=VALUE: its own credential at a server (repeat).', multiple: true }),
    'remove-credential': Flags.string({ description: 'SERVER.ENV or SERVER.header:NAME: a credential of its own to take out (repeat).', multiple: true }),
    unset: Flags.string({
      description: 'A setting back to its default: views, tools, rate or max-concurrent (repeat).',
      multiple: true,
      options: Object.keys(UNSET_FLAGS),
    }),
    'literal-secrets': Flags.boolean({
      description: 'Keep a --credential value written as plain text (else it must be ${VAR}, ${file:...} or ${keyring:...}).',
    }),
  };

  async run(): Promise<{ name: string; changed: boolean; config: string }> {
    const { args, flags } = await this.parse(ClientsSet);
    const [{ setClient, parseCredentialFlag }, { expiryOf }, { editConfigFile }] = await Promise.all([
      import('../../config/edits/client-set.js'),
      import('../../config/edits/token-life.js'),
      import('../../tools/shared/config-access.js'),
    ]);
    const now = Date.now();
    const { conditionFlags } = await import('../../cli/args/condition-flags.js');
    const conditions = conditionFlags(flags.condition);
    const change = {
      ...(flags.view ? { views: flags.view } : {}),
      ...(flags.tools ? { tools: flags.tools } : {}),
      ...(flags['read-only'] !== undefined ? { read_only: flags['read-only'] } : {}),
      ...(flags.rate !== undefined ? { rate: flags.rate } : {}),
      ...(conditions ? { conditions } : {}),
      ...(flags['max-concurrent'] !== undefined ? { max_concurrent: flags['max-concurrent'] } : {}),
      ...(flags.expires !== undefined ? { expires: expiryOf(flags.expires, now) } : {}),
      ...(flags.unset ? { unset: flags.unset.map((u) => UNSET_FLAGS[u as keyof typeof UNSET_FLAGS]) } : {}),
      ...(flags.credential
        ? { credentials: flags.credential.map((c) => parseCredentialFlag(c, true) as ReturnType<typeof parseCredentialFlag> & { value: string }) }
        : {}),
      ...(flags['remove-credential'] ? { remove_credentials: flags['remove-credential'].map((c) => parseCredentialFlag(c, false)) } : {}),
      ...(flags['literal-secrets'] ? { literal_secrets: true } : {}),
    };
    const { path, changed } = await editConfigFile(this.toolContext(flags.config), (doc) => setClient(doc, args.name, change, now));
    if (!this.jsonEnabled())
      this.print(
        changed
          ? `Changed client ${args.name} in ${path}; its token is the same. A running serve applies it to the next request.`
          : `Client ${args.name} already had these settings; ${path} is unchanged.`,
      );
    return { name: args.name, changed, config: path };
  }
}
