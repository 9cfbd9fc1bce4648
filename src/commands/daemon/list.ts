import { McpkitCommand } from '../../cli/base-command.js';
import type { DaemonState } from '../../daemon/client/control.js';

export default class DaemonList extends McpkitCommand {
  static override summary = 'List every mcpkit daemon of yours: one per config file, with its pid, uptime and requests.';
  static override description = 'A daemon serves the commands of one config; "mcpkit daemon stop --all" stops them all.';
  static override examples = ['<%= config.bin %> daemon list', '<%= config.bin %> daemon list --json'];
  static override hiddenAliases = ['daemon:ls'];

  async run(): Promise<{ daemons: DaemonState[] }> {
    const { flags } = await this.parse(DaemonList);
    const { listDaemons } = await import('../../daemon/client/control.js');
    const daemons = await listDaemons(this.runtime(flags.config).env);
    if (!this.jsonEnabled()) {
      if (daemons.length === 0) this.print('No mcpkit daemon runs.');
      else {
        const { createRenderUi } = await import('../../cli/terminal/render.js');
        const rows = daemons.map((d) => {
          const s = d.status as { pid: number; uptime_s?: number; requests?: number };
          return { config: d.config, pid: s.pid, up_s: s.uptime_s ?? '', requests: s.requests ?? '', build: d.other_build ? 'another' : 'this' };
        });
        this.print(createRenderUi(this.color).table(rows));
      }
    }
    return { daemons };
  }
}
