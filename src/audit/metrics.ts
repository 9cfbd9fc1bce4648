import { Counter, Gauge, Histogram, Registry } from './prom-client-parts.js';
import { outcomeOf, type AuditedCall } from './auditor.js';
import type { AuditEntry } from './audit-log.js';

type Outcome = AuditEntry['outcome'];
type Labels = { view: string; server: string; tool: string; client: string };
interface LabelSet {
  labels: Labels;
  outcomes: Record<Outcome, Labels & { outcome: Outcome }>;
}
/** The client label of a caller that is not a configured client (serve.clients): the label set stays bounded by the config. */
export const ANONYMOUS_CLIENT = '(anonymous)';
/** Label sets remembered; tools are few, and names no tool has are "(unknown)", so this is reached only by a catalog of thousands. */
const MAX_LABEL_SETS = 10_000;

/** What the metrics read from the process when scraped. */
export interface MetricSources {
  upstreams: () => readonly { name: string; state: string }[];
  sessions: () => number;
  generation: () => number;
  /** The audit log's state, when serve keeps one. */
  audit?: () => { ok: boolean; dropped_lines: number };
}

/**
 * `GET /metrics` of `serve --http`, in Prometheus' text format through prom-client: tool calls
 * by view, server, tool and outcome, their duration, each upstream's state, open sessions, config
 * reloads, and the process' own metrics. A name no tool has (a protocol error) counts under
 * "(unknown)", so a client cannot grow the label set without end.
 */
export class ServeMetrics {
  readonly registry = new Registry();
  private readonly calls: Counter<'view' | 'server' | 'tool' | 'client' | 'outcome'>;
  /** Label objects by view, server and tool (labelSet). */
  private readonly labelSets = new Map<string, LabelSet>();
  private readonly duration: Histogram<'view' | 'server' | 'tool' | 'client'>;
  private readonly reloads: Counter<'outcome'>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    this.calls = new Counter({
      name: 'mcpkit_tool_calls_total',
      help: 'tools/call requests answered, by view, server ("mcpkit" for its own tools), tool as published (a call through a meta-tool: the tool it ran), client (a name of serve.clients, else "(anonymous)"), and outcome (ok, tool_error, protocol_error, refused: not run, by a limit, the client\'s rules, tool pinning or a policy; refused_by_condition: refused by a condition on its arguments).',
      labelNames: ['view', 'server', 'tool', 'client', 'outcome'],
      registers,
    });
    this.duration = new Histogram({
      name: 'mcpkit_tool_call_duration_seconds',
      help: 'How long tools/call requests took, from arrival to answer.',
      labelNames: ['view', 'server', 'tool', 'client'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.reloads = new Counter({
      name: 'mcpkit_config_reloads_total',
      help: 'Config reloads, by outcome (applied, unchanged, kept).',
      labelNames: ['outcome'],
      registers,
    });
    new Gauge({
      name: 'mcpkit_upstream_up',
      help: '1 when the upstream server is connected (or not yet needed), 0 when it is down, needs a login, or closed.',
      labelNames: ['server'],
      registers,
      collect() {
        this.reset();
        for (const u of sources.upstreams()) this.set({ server: u.name }, u.state === 'ready' || u.state === 'idle' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'mcpkit_sessions_open',
      help: 'Open MCP sessions (2025-11-25 clients over HTTP).',
      registers,
      collect() {
        this.set(sources.sessions());
      },
    });
    new Gauge({
      name: 'mcpkit_config_generation',
      help: 'The generation of the config being served (1 at start, one more per applied reload).',
      registers,
      collect() {
        this.set(sources.generation());
      },
    });
    if (sources.audit) {
      const audit = sources.audit;
      new Gauge({
        name: 'mcpkit_audit_log_up',
        help: '1 while the audit log is written, 0 while writing it fails (a full disk): lines wait, and past the limit are dropped.',
        registers,
        collect() {
          this.set(audit().ok ? 1 : 0);
        },
      });
      let counted = 0;
      new Counter({
        name: 'mcpkit_audit_dropped_lines_total',
        help: 'Audit lines dropped: more waited than may (serve fell behind, or the log could not be written).',
        registers,
        collect() {
          const now = audit().dropped_lines;
          if (now > counted) this.inc(now - counted);
          counted = now;
        },
      });
    }
    processMetrics(registers);
  }

  record(call: AuditedCall): void {
    this.recordAll([call]);
  }

  /**
   * A batch of calls (CallQueue): the counter moves once per label set of the batch, and label
   * objects are made once per view, server and tool, not per call: prom-client checks and hashes
   * the labels on every update, which was most of what a call cost the metrics.
   */
  recordAll(calls: readonly AuditedCall[]): void {
    const counts = new Map<LabelSet['outcomes'][Outcome], number>();
    for (const call of calls) {
      if (call.method !== 'tools/call') continue;
      const seconds = ((call.finished ?? performance.now()) - call.started) / 1000;
      const set = this.labelSet(call);
      const withOutcome = set.outcomes[outcomeOf(call).outcome];
      counts.set(withOutcome, (counts.get(withOutcome) ?? 0) + 1);
      this.duration.observe(set.labels, seconds);
    }
    for (const [labels, n] of counts) this.calls.inc(labels, n);
  }

  /** The labels of a call's view, server and tool, made once (at most MAX_LABEL_SETS kept; past it, made anew). */
  private labelSet(call: AuditedCall): LabelSet {
    const known = call.server !== undefined && call.server !== null;
    const view = call.view ?? '(default)';
    const server = known ? call.server! : '(unknown)';
    const tool = known ? call.name : '(unknown)';
    const client = call.named && call.identity !== undefined ? call.identity : ANONYMOUS_CLIENT;
    const key = `${view}\0${server}\0${tool}\0${client}`;
    let set = this.labelSets.get(key);
    if (!set) {
      const labels = { view, server, tool, client };
      set = {
        labels,
        outcomes: {
          ok: { ...labels, outcome: 'ok' },
          tool_error: { ...labels, outcome: 'tool_error' },
          protocol_error: { ...labels, outcome: 'protocol_error' },
          refused: { ...labels, outcome: 'refused' },
          refused_by_condition: { ...labels, outcome: 'refused_by_condition' },
        },
      };
      if (this.labelSets.size < MAX_LABEL_SETS) this.labelSets.set(key, set);
    }
    return set;
  }

  reloaded(outcome: string): void {
    this.reloads.inc({ outcome });
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/**
 * The process' own metrics (Prometheus' standard names), read when scraped. Not prom-client's
 * collectDefaultMetrics: its GC observer and event-loop monitor work on every collection and
 * every loop turn, which cost serve --http several microseconds per call (measured: 5-10 µs on a
 * bare node:http server), for histograms nobody asked for.
 */
function processMetrics(registers: Registry[]): void {
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
  const cpu = (name: string, help: string, read: (usage: NodeJS.CpuUsage) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read(process.cpuUsage()) / 1e6);
      },
    });
  cpu('process_cpu_user_seconds_total', 'Total user CPU time spent in seconds.', (u) => u.user);
  cpu('process_cpu_system_seconds_total', 'Total system CPU time spent in seconds.', (u) => u.system);
  cpu('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', (u) => u.user + u.system);
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  gauge('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', () => startSeconds);
  gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', () => process.memoryUsage.rss());
  gauge('nodejs_heap_size_total_bytes', 'Process heap size from Node.js in bytes.', () => process.memoryUsage().heapTotal);
  gauge('nodejs_heap_size_used_bytes', 'Process heap size used from Node.js in bytes.', () => process.memoryUsage().heapUsed);
  gauge('nodejs_external_memory_bytes', 'Node.js external memory size in bytes.', () => process.memoryUsage().external);
}
