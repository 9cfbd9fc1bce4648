import { McpkitCommand } from '../../cli/base-command.js';

export default class DaemonStart extends McpkitCommand {
  static override summary = "Start mcpkit daemon for this config: a warm process the terminal's commands use.";
  static override description =
    'call, tools, retrieve, view tools and server test then run in the daemon when it runs for their config: upstream servers stay connected and the file index stays built, with the same output. It listens on a Unix socket of your own (never TCP), follows the config as it is edited, and exits after daemon.idle_minutes (default 30) without a request. "daemon: auto" in the config starts it with the first such command. --no-daemon or MCPKIT_NO_DAEMON=1 bypasses it.';
  static override examples = ['<%= config.bin %> daemon start', '<%= config.bin %> daemon start --config ./mcpkit.yaml --json'];

  // A plain line runs without oclif (cli/daemon-control-fast-path.ts); both answer through cli/daemon-control.ts.
  async run(): Promise<unknown> {
    const { flags } = await this.parse(DaemonStart);
    const runtime = this.runtime(flags.config);
    const { daemonStartAnswer } = await import('../../cli/daemon-control.js');
    const answer = await daemonStartAnswer(runtime.configLocation.path, runtime.env);
    if (!this.jsonEnabled()) this.print(await answer.text(this.color));
    return answer.result;
  }
}
