import { CONFIG_FLAG, McpkitCommand } from '../../cli/base-command.js';

export default class DaemonRun extends McpkitCommand {
  static override hidden = true;
  static override summary = 'Run mcpkit daemon in the foreground (what "daemon start" runs in the background).';
  static override examples = ['<%= config.bin %> daemon run --config ./mcpkit.yaml'];
  static override enableJsonFlag = false;
  static override baseFlags = { config: CONFIG_FLAG };

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonRun);
    const runtime = this.runtime(flags.config);
    const { runDaemon } = await import('../../daemon/server/server.js');
    await runDaemon({ configPath: runtime.configLocation.path, version: this.config.version });
  }
}
