import { McpkitCommand } from '../../cli/base-command.js';

export default class DaemonStart extends McpkitCommand {
  static override summary = "Start mcpkit daemon for this config: a warm process the terminal's commands use.";
  static override description =
    'call, tools, retrieve, view tools and server test then run in the daemon when it runs for their config: upstream servers stay connected and the file index stays built, with the same output. It listens on a Unix socket of your own (never TCP), follows the config as it is edited, and exits after daemon.idle_minutes (default 30) without a request. "daemon: auto" in the config starts it with the first such command. --no-daemon or MCPKIT_NO_DAEMON=1 bypasses it.';
  static override examples = ['<%= config.bin %> daemon start', '<%= config.bin %> daemon start --config ./mcpkit.yaml --json'];

  async run(): Promise<unknown> {
    const { flags } = await this.parse(DaemonStart);
    const runtime = this.runtime(flags.config);
    const { startDaemon } = await import('../../daemon/client/control.js');
    const started = await startDaemon(runtime.configLocation.path, runtime.env);
    if (!this.jsonEnabled()) {
      this.print(
        started.already
          ? `mcpkit daemon already runs for ${runtime.configLocation.path} (pid ${started.pid}).`
          : `mcpkit daemon started for ${runtime.configLocation.path} (pid ${started.pid}${started.replaced ? `, replacing pid ${started.replaced} of another build` : ''}); log: ${started.log}`,
      );
    }
    return { config: runtime.configLocation.path, ...started };
  }
}
