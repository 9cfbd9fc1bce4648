import type { ChalkInstance } from 'chalk';
import type { DaemonState } from '../daemon/client/control.js';
import type { DaemonStatus } from '../daemon/client/protocol.js';

/**
 * What `daemon start`, `stop` and `status` answer: the result `--json` prints, the words a person
 * reads, and the exit code. One place for both ways a line runs (the oclif commands, and
 * daemon-control-fast-path.ts without oclif), so both print the same.
 */
export interface DaemonControlAnswer {
  result: unknown;
  /** The words printed without --json. */
  text: (color: ChalkInstance) => Promise<string>;
  /** Set only where it is not 0: status when no daemon runs. */
  exitCode?: number;
}

export async function daemonStartAnswer(configPath: string, env: NodeJS.ProcessEnv): Promise<DaemonControlAnswer> {
  const { startDaemon } = await import('../daemon/client/control.js');
  const started = await startDaemon(configPath, env);
  const text = started.already
    ? `mcpkit daemon already runs for ${configPath} (pid ${started.pid}).`
    : `mcpkit daemon started for ${configPath} (pid ${started.pid}${started.replaced ? `, replacing pid ${started.replaced} of another build` : ''}); log: ${started.log}`;
  return { result: { config: configPath, ...started }, text: async () => text };
}

export async function daemonStopAnswer(configPath: string, env: NodeJS.ProcessEnv): Promise<DaemonControlAnswer> {
  const { stopDaemon } = await import('../daemon/client/control.js');
  const pid = await stopDaemon(configPath, env);
  const text = pid === undefined ? `No mcpkit daemon runs for ${configPath}.` : `mcpkit daemon stopped (pid ${pid}).`;
  return { result: { config: configPath, stopped: pid !== undefined, ...(pid !== undefined ? { pid } : {}) }, text: async () => text };
}

export async function daemonStatusAnswer(configPath: string, env: NodeJS.ProcessEnv): Promise<DaemonControlAnswer> {
  const { daemonState } = await import('../daemon/client/control.js');
  const state = await daemonState(configPath, env);
  return { result: state, text: (color) => renderStatus(state, color), ...(state.running ? {} : { exitCode: 1 }) };
}

async function renderStatus(state: DaemonState, color: ChalkInstance): Promise<string> {
  if (!state.running) return `No mcpkit daemon runs for ${state.config}. Start one with "mcpkit daemon start".`;
  const { createRenderUi } = await import('./terminal/render.js');
  const ui = createRenderUi(color);
  const s = state.status as unknown as DaemonStatus;
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
