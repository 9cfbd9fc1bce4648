import { McpkitCommand } from '../../cli/base-command.js';
import type { DaemonState } from '../../daemon/client/control.js';

export default class DaemonStatus extends McpkitCommand {
  static override summary = 'Whether mcpkit daemon runs for this config: pid, uptime, each upstream server, cache and memory.';
  static override description = 'Exits with 1 when no daemon runs (scripts can test it), 0 when one does.';
  static override examples = ['<%= config.bin %> daemon status', '<%= config.bin %> daemon status --json'];

  async run(): Promise<DaemonState> {
    const { flags } = await this.parse(DaemonStatus);
    const runtime = this.runtime(flags.config);
    const { daemonState } = await import('../../daemon/client/control.js');
    const state = await daemonState(runtime.configLocation.path, runtime.env);
    if (!state.running) this.scope.io.exitCode(1);
    if (!this.jsonEnabled()) this.print(await render(state, this.color));
    return state;
  }
}

async function render(state: DaemonState, color: import('chalk').ChalkInstance): Promise<string> {
  if (!state.running) return `No mcpkit daemon runs for ${state.config}. Start one with "mcpkit daemon start".`;
  const { createRenderUi } = await import('../../cli/terminal/render.js');
  const ui = createRenderUi(color);
  const s = state.status as unknown as import('../../daemon/server/server.js').DaemonStatus;
  const mib = (bytes: number | undefined) => `${((bytes ?? 0) / 1048576).toFixed(1)} MiB`;
  const lines = [
    `mcpkit daemon, pid ${s.pid}, up ${uptime(s.uptime_s)}, ${s.requests} request(s) answered`,
    `config   ${s.config}`,
    `socket   ${s.socket}`,
    `log      ${state.log}`,
    `build    ${s.build}${state.other_build ? ui.color.yellow(' (another build than this mcpkit: commands do their work themselves; "mcpkit daemon restart")') : ''}`,
    `idle     exits after ${s.idle_minutes} minute(s) without a request`,
    `memory   ${mib(s.memory.rss_bytes)} resident, ${mib(s.memory.heap_used_bytes)} heap`,
    `cache    ${s.cache.text_bytes !== undefined ? `file index: ${mib(s.cache.text_bytes)} text, ${mib(s.cache.cache_bytes)} cached${s.cache.pending_files ? `; still filtering ${s.cache.pending_files} files (searches are faster once done)` : ''}` : 'no file index yet'}`,
  ];
  for (const r of s.cache.roots ?? []) lines.push(`         ${r.root}: ${r.files} files, ${r.mode}${r.reason ? ` (${r.reason})` : ''}`);
  const upstreams = s.upstreams.map((u) => ({ server: u.name, state: u.state, tools: u.tools ?? '', protocol: u.protocol ?? '', error: u.error ?? '' }));
  lines.push('', upstreams.length ? ui.table(upstreams) : 'No upstream server connected yet (they start with the first command that needs them).');
  return lines.join('\n');
}

function uptime(seconds: number): string {
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  return `${(seconds / 3600).toFixed(1)}h`;
}
