import { McpkitCommand } from '../../cli/base-command.js';

export default class DaemonRestart extends McpkitCommand {
  static override summary = 'Stop mcpkit daemon of this config if it runs, and start it again.';
  static override description = 'For a daemon that should see a new environment (it keeps the one it started with) or a new mcpkit.';
  static override examples = ['<%= config.bin %> daemon restart'];

  async run(): Promise<unknown> {
    const { flags } = await this.parse(DaemonRestart);
    const runtime = this.runtime(flags.config);
    const { startDaemon, stopDaemon } = await import('../../daemon/client/control.js');
    const stopped = await stopDaemon(runtime.configLocation.path, runtime.env);
    const started = await startDaemon(runtime.configLocation.path, runtime.env);
    if (!this.jsonEnabled()) {
      this.print(
        `mcpkit daemon ${stopped === undefined ? 'started' : 'restarted'} for ${runtime.configLocation.path} (pid ${started.pid}); log: ${started.log}`,
      );
    }
    return { config: runtime.configLocation.path, ...(stopped !== undefined ? { stopped } : {}), ...started };
  }
}
