import { Args, Flags } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';
import type { GatewayStatus } from '../../cli/gateway/gateway-status.js';

export default class GatewayStatusCommand extends McpkitCommand {
  static override summary = 'The replicas of a running "serve --http" gateway: version, start, config generation and digest, calls in flight, last heartbeat.';
  static override description =
    "Reads the admin's /health of the gateway at URL (its base, /mcp or /health address) with the admin's token (serve.token) from MCPKIT_TOKEN, or the variable --token-env names: never from the command line. With serve.store every replica sharing the store is listed; without one, the replica that answered. Exits 1 when the fleet is degraded (replicas serving different configs, one not heard from, an upstream down, the store lost: the reasons are printed) or cannot be read.";
  static override examples = [
    '<%= config.bin %> gateway status http://127.0.0.1:8000',
    'MCPKIT_TOKEN=$ADMIN_TOKEN <%= config.bin %> gateway status https://gateway.internal --json',
    '<%= config.bin %> gateway status https://gateway.internal --token-env TEAM_GATEWAY_TOKEN',
  ];
  static override args = {
    url: Args.string({ description: "The gateway's address, e.g. http://127.0.0.1:8000 (its /mcp or /health address works too).", required: true }),
  };
  static override flags = {
    'token-env': Flags.string({
      description: "The environment variable holding the admin's token, serve.token (default MCPKIT_TOKEN): a token on the command line shows in ps.",
    }),
  };

  async run(): Promise<GatewayStatus> {
    const { args, flags } = await this.parse(GatewayStatusCommand);
    const { adminToken, gatewayStatus, renderGatewayStatus } = await import('../../cli/gateway/gateway-status.js');
    const status = await gatewayStatus(args.url, adminToken(this.scope.env, flags['token-env']));
    if (!this.jsonEnabled()) {
      const { createRenderUi } = await import('../../cli/terminal/render.js');
      const ui = createRenderUi(this.color);
      this.print(renderGatewayStatus(status, this.color, (rows) => ui.table(rows)));
    }
    // A script or a probe can test it: 0 when the fleet is well, 1 when it is degraded.
    if (status.status !== 'ok') this.scope.io.exitCode(1);
    return status;
  }
}
