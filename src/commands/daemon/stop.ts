import { Flags } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';

export default class DaemonStop extends McpkitCommand {
  static override summary = 'Stop mcpkit daemon of this config (its upstream servers stop with it).';
  static override description = 'Calls in flight end first. Stopping when no daemon runs is not an error.';
  static override examples = ['<%= config.bin %> daemon stop', '<%= config.bin %> daemon stop --config ./mcpkit.yaml', '<%= config.bin %> daemon stop --all'];
  static override flags = {
    all: Flags.boolean({ description: 'Stop every daemon of yours, whatever its config ("mcpkit daemon list" shows them).', exclusive: ['config'] }),
  };

  // A plain line without --all runs without oclif (cli/daemon-control-fast-path.ts); both answer through cli/daemon-control.ts.
  async run(): Promise<unknown> {
    const { flags } = await this.parse(DaemonStop);
    if (flags.all) {
      const { stopAllDaemons } = await import('../../daemon/client/control.js');
      const stopped = await stopAllDaemons(this.runtime(undefined).env);
      if (!this.jsonEnabled())
        this.print(stopped.length ? stopped.map((s) => `mcpkit daemon stopped (pid ${s.pid}) for ${s.config}`).join('\n') : 'No mcpkit daemon runs.');
      return { stopped };
    }
    const runtime = this.runtime(flags.config);
    const { daemonStopAnswer } = await import('../../cli/daemon-control.js');
    const answer = await daemonStopAnswer(runtime.configLocation.path, runtime.env);
    if (!this.jsonEnabled()) this.print(await answer.text(this.color));
    return answer.result;
  }
}
