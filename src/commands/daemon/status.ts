import { McpkitCommand } from '../../cli/base-command.js';

export default class DaemonStatus extends McpkitCommand {
  static override summary = 'Whether mcpkit daemon runs for this config: pid, uptime, each upstream server, cache and memory.';
  static override description = 'Exits with 1 when no daemon runs (scripts can test it), 0 when one does.';
  static override examples = ['<%= config.bin %> daemon status', '<%= config.bin %> daemon status --json'];

  // A plain line runs without oclif (cli/daemon-control-fast-path.ts); both answer through cli/daemon-control.ts.
  async run(): Promise<unknown> {
    const { flags } = await this.parse(DaemonStatus);
    const runtime = this.runtime(flags.config);
    const { daemonStatusAnswer } = await import('../../cli/daemon-control.js');
    const answer = await daemonStatusAnswer(runtime.configLocation.path, runtime.env);
    if (answer.exitCode !== undefined) this.scope.io.exitCode(answer.exitCode);
    if (!this.jsonEnabled()) this.print(await answer.text(this.color));
    return answer.result;
  }
}
