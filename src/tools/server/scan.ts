import * as z from 'zod';
import { printable } from '../../core/printable.js';
import { ToolError } from '../../core/errors.js';
import { unknownServer } from '../../core/suggest.js';
import { defineTool, TERMINAL_ONLY_TOOL } from '../../tool/define.js';
import type { ToolContext } from '../../tool/context.js';
import type { Finding, ScanTool } from '../../proxy/pins/scan.js';
import type { PinFile } from '../../config/files/pin-file.js';
import type { Severity } from '../../proxy/pins/scan-rules.js';
import { keyOf, type Listing } from '../../proxy/pins/pins.js';

/**
 * `mcpkit server scan`: the approved tool definitions of the lock file checked with the offline
 * rules of proxy/pins/scan-rules.ts, as a table, JSON or SARIF for CI. Terminal-only, like diff and
 * approve: its excerpts quote the very text a poisoned tool aims at a model.
 */

const FAIL_ON = ['low', 'medium', 'high', 'critical', 'none'] as const;

/** The lock file beside the config, its text, and every pin of it as the scanner takes it: one read. */
export async function lockedTools(ctx: ToolContext): Promise<{ file: string; text: string; pins: PinFile; tools: ScanTool[] }> {
  const [{ pinFilePath, readPinsWithText }, { pinnedScanTools }] = await Promise.all([
    import('../../config/files/pin-file.js'),
    import('../../proxy/pins/scan.js'),
  ]);
  const file = pinFilePath(ctx.configLocation.path);
  const { pins, text } = readPinsWithText(file);
  return { file, text, pins, tools: pinnedScanTools(pins) };
}

/** Counts by severity, most severe first. */
export function severityCounts(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

/** A finding in one line for a terminal. */
export function findingLine(f: Finding): string {
  const where = f.span ? `${f.field}[${f.span.start}..${f.span.start + f.span.length}]` : f.field;
  const what = f.kind ? `${f.kind.replace(/s$/, '').replace('_', ' ')} ` : '';
  // One finding, one line: a name or text from an upstream shows its line breaks and escapes as \n and \u001b.
  return printable(`${f.severity.padEnd(8)} ${f.rule} ${f.name.padEnd(22)} ${f.server}/${what}${f.tool} ${where}: ${f.detail}`);
}

export const serverScan = defineTool({
  name: 'server_scan',
  group: 'server',
  command: {
    id: 'server scan',
    args: ['name'],
    examples: [
      '<%= config.bin %> server scan',
      '<%= config.bin %> server scan github --fail-on medium',
      '<%= config.bin %> server scan --sarif > mcpkit-scan.sarif   # for code scanning in CI',
    ],
  },
  title: 'Scan the approved tool definitions for poisoning',
  description:
    'Check every approved tool definition in the lock file beside the config with offline rules: hidden text, instructions aimed at the model, tool shadowing, requests for secrets and sensitive files, exfiltration sinks, parameters with no purpose, look-alike and colliding names, and pins that do not match their hash. Each finding has a rule id, a severity, the field and the span. Exits 1 when a finding is at or above --fail-on (default high). --sarif prints SARIF 2.1.0 for CI and code scanning.',
  input: z.strictObject({
    name: z.string().min(1).optional().describe('Only this server (its tools are still compared with every other server).'),
    sarif: z.boolean().default(false).describe('Print the findings as SARIF 2.1.0 (code scanning, CI) instead of a table.'),
    fail_on: z.enum(FAIL_ON).default('high').describe('Exit 1 when a finding is at or above this severity: low, medium, high, critical, or none.'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  hostAccess: 'config',
  ...TERMINAL_ONLY_TOOL,
  async run(input, ctx) {
    if (ctx.surface !== 'cli') {
      throw new ToolError(
        'FORBIDDEN',
        'server scan is for a person at a terminal or CI, not for an MCP client: it quotes the text a poisoned tool aims at a model.',
        {
          hint: 'Run it in a terminal: mcpkit server scan',
        },
      );
    }
    const [{ file, text, tools }, { scanTools, failsAt }, { SCAN_RULES }, { toSarif, lockLine }, { version }] = await Promise.all([
      lockedTools(ctx),
      import('../../proxy/pins/scan.js'),
      import('../../proxy/pins/scan-rules.js'),
      import('../../proxy/pins/sarif.js'),
      import('../../core/version.js'),
    ]);
    if (input.name !== undefined && !tools.some((t) => t.server === input.name)) {
      const config = await ctx.config().catch(() => undefined);
      if (!config?.mcp_servers[input.name]) throw unknownServer(input.name, Object.keys(config?.mcp_servers ?? {}));
    }
    const findings = scanTools(tools).filter((f) => input.name === undefined || f.server === input.name);
    const scanned = tools.filter((t) => input.name === undefined || t.server === input.name);
    const fails = input.fail_on !== 'none' && failsAt(findings, input.fail_on);
    const { relative } = await import('node:path');
    const lockUri = relative(ctx.cwd, file).split('\\').join('/') || file;
    return {
      file,
      servers: new Set(scanned.map((t) => t.server)).size,
      tools: scanned.length,
      counts: severityCounts(findings),
      fail_on: input.fail_on,
      fails,
      findings,
      ...(input.sarif ? { sarif: toSarif(findings, SCAN_RULES, { version: version(), lockUri, lineOf: (s, t) => lockLine(text, s, t) }) } : {}),
    };
  },
  exitCode: (r) => (r.fails ? 1 : 0),
  render: (r, ui) => {
    if (r.sarif) return JSON.stringify(r.sarif, null, 2);
    const counts = Object.entries(r.counts)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ');
    const head =
      r.findings.length === 0
        ? `${ui.color.green('✓')} No findings in ${r.tools} approved tools of ${r.servers} server(s) (${r.file}).`
        : `${r.findings.length} finding(s) in ${r.tools} approved tools of ${r.servers} server(s) (${r.file}): ${counts}.`;
    const paint = (f: Finding) =>
      f.severity === 'critical' || f.severity === 'high' ? ui.color.red : f.severity === 'medium' ? ui.color.yellow : ui.color.dim;
    return [head, ...r.findings.map((f) => paint(f)(findingLine(f)))].join('\n');
  },
});

/**
 * The findings for a server's listing now (server diff, server approve): its tools, prompts,
 * resources and templates, compared with every other server's approved tools.
 */
export async function scanListing(ctx: ToolContext, server: string, listing: Listing, lock?: PinFile): Promise<Finding[]> {
  const [{ scanTools, pinnedScanTools }, { pinOfItem }] = await Promise.all([import('../../proxy/pins/scan.js'), import('../../proxy/pins/pins.js')]);
  const locked = lock ? pinnedScanTools(lock) : (await lockedTools(ctx)).tools;
  const others = locked.filter((t) => t.server !== server);
  const own = (['tools', 'prompts', 'resources', 'resource_templates'] as const).flatMap((kind) =>
    (listing[kind] ?? []).map((item) => ({
      server,
      tool: keyOf(kind, item),
      definition: pinOfItem(kind, item).definition,
      ...(kind === 'tools' ? {} : { kind }),
    })),
  );
  return scanTools([...others, ...own]).filter((f) => f.server === server);
}
