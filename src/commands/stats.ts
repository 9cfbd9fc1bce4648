import { Flags } from '@oclif/core';
import { McpkitCommand } from '../cli/base-command.js';
import { ToolError } from '../core/errors.js';
import type { Stats, STATS_GROUPS } from '../audit/stats.js';

export default class StatsCommand extends McpkitCommand {
  static override summary = 'What agents did through "mcpkit serve": calls, errors and durations per tool and per client, from the audit log.';
  static override description =
    'Reads the audit log serve writes (--audit-log, or serve.audit_log of the config, with its rotated files PATH.1, PATH.2, ...). Durations are p50, p95 and max in milliseconds; an error is a tool error or a protocol error.';
  static override examples = [
    '<%= config.bin %> stats',
    '<%= config.bin %> stats --since 1h',
    '<%= config.bin %> stats --by client',
    '<%= config.bin %> stats --audit-log ./audit.jsonl --json',
  ];
  static override flags = {
    'audit-log': Flags.string({ description: 'The audit log to read (default: serve.audit_log of the config).' }),
    since: Flags.string({ description: 'Only calls in this last stretch of time: 90s, 15m, 1h, 2d.' }),
    by: Flags.string({
      description:
        'Only this table: tool, client (who called: a name of serve.clients, or how an unnamed caller was let in), or agent (the MCP client software).',
      options: ['tool', 'client', 'agent'],
    }),
  };

  async run(): Promise<Stats> {
    const { flags } = await this.parse(StatsCommand);
    const [{ parseAuditLines, parseDuration, summarize }, { readFileSync, existsSync }, { resolve, dirname }] = await Promise.all([
      import('../audit/stats.js'),
      import('node:fs'),
      import('node:path'),
    ]);
    let sinceMs: number | undefined;
    if (flags.since !== undefined) {
      sinceMs = parseDuration(flags.since);
      if (sinceMs === undefined) throw new ToolError('INVALID_INPUT', `--since takes a time such as 90s, 15m, 1h or 2d, got "${flags.since}".`);
    }
    let path = flags['audit-log'] ? resolve(this.scope.cwd, flags['audit-log']) : undefined;
    if (!path) {
      const runtime = this.runtime(flags.config);
      const { serveAsWritten } = await import('../cli/gateway/serve-as-written.js');
      const { serve, problems } = await serveAsWritten(runtime);
      const written = serve.audit_log;
      if (written?.includes('${') && problems)
        throw new ToolError('CONFIG_INVALID', `serve.audit_log is ${written}, which this shell cannot resolve: ${problems.join('; ')}.`, {
          hint: 'Set the variable, or name the log with --audit-log PATH.',
        });
      const [{ defaultAuditLog }, { homedir }] = await Promise.all([import('../config/schema/defaults.js'), import('node:os')]);
      // The usual place (docs/guide/observability.md's serve --audit-log example writes there) when nothing names one.
      const usual = defaultAuditLog(runtime.env, runtime.env.HOME ?? homedir());
      if (!written && !existsSync(usual)) {
        throw new ToolError('NOT_FOUND', `No audit log to read: the config sets no serve.audit_log, no --audit-log was given, and there is none at ${usual}.`, {
          hint: `Run serve with --audit-log ${usual} (or set serve.audit_log), then: mcpkit stats`,
        });
      }
      path = written ? resolve(dirname(runtime.configLocation.path), written) : usual;
    }
    if (!existsSync(path)) {
      throw new ToolError('FILE_NOT_FOUND', `The audit log ${path} does not exist (yet).`, {
        details: { file: path },
        hint: 'serve writes it once an agent makes its first call.',
      });
    }
    // Oldest first: the rotated files, then the live one.
    const files = [...Array.from({ length: 100 }, (_, i) => `${path}.${100 - i}`).filter((f) => existsSync(f)), path];
    let skipped = 0;
    const entries = files.flatMap((file) => {
      const parsed = parseAuditLines(readFileSync(file, 'utf8'));
      skipped += parsed.skipped;
      return parsed.entries;
    });
    const all = summarize(entries, { now: Date.now(), skipped, ...(sinceMs !== undefined ? { sinceMs } : {}) });
    const by = flags.by as (typeof STATS_GROUPS)[number] | undefined;
    // --by keeps one table (and its key in --json).
    const stats: Partial<Stats> & Omit<Stats, 'by_tool' | 'by_client' | 'by_agent'> = by
      ? { since: all.since, calls: all.calls, errors: all.errors, skipped: all.skipped, [`by_${by}`]: all[`by_${by}`] }
      : all;
    if (!this.jsonEnabled()) this.print(await render(stats, this.color));
    return stats as Stats;
  }
}

async function render(stats: Partial<Stats> & Pick<Stats, 'calls' | 'errors' | 'since' | 'skipped'>, color: import('chalk').ChalkInstance): Promise<string> {
  const { createRenderUi } = await import('../cli/terminal/render.js');
  const ui = createRenderUi(color);
  const table = (title: string, rows: Stats['by_tool'] | undefined) =>
    rows?.length ? [ui.table(rows.map(({ key, ...r }) => ({ [title]: key, ...r }))), ''] : [];
  return [
    `${stats.calls} call(s), ${stats.errors} error(s)${stats.since ? ` since ${stats.since}` : ''}${stats.skipped ? ui.color.yellow(`; ${stats.skipped} line(s) that are not audit entries skipped`) : ''}`,
    '',
    ...table('tool', stats.by_tool),
    ...table('client', stats.by_client),
    ...table('agent', stats.by_agent),
  ]
    .join('\n')
    .trimEnd();
}
