import { createHash } from 'node:crypto';
import type { Finding } from './scan.js';
import type { ScanRule, Severity } from './rule-shape.js';
import { escapeRegExp } from '../../core/regexp/regexp.js';

/**
 * Scan findings as SARIF 2.1.0 (OASIS), the format code-scanning services and CI read: one run
 * of the tool "mcpkit", its rules, and a result per finding located in the lock file (the line of
 * the tool's pin) and logically as server/tool/field. Pure.
 */

const LEVEL: Readonly<Record<Severity, 'note' | 'warning' | 'error'>> = { low: 'note', medium: 'warning', high: 'error', critical: 'error' };
/** The 0-10 score GitHub code scanning ranks security results by. */
const SCORE: Readonly<Record<Severity, string>> = { low: '2.0', medium: '5.5', high: '8.0', critical: '9.5' };

export interface SarifOptions {
  version: string;
  /** The lock file, as the results' artifact (relative to where the scan runs, or a file: URI). */
  lockUri: string;
  /** The 1-based line of a tool's pin in the lock file, when it can be found. */
  lineOf?: (server: string, tool: string) => number | undefined;
}

export function toSarif(findings: readonly Finding[], rules: readonly ScanRule[], options: SarifOptions): object {
  const index = new Map(rules.map((r, i) => [r.id, i]));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'mcpkit',
            semanticVersion: options.version,
            rules: rules.map((r) => ({
              id: r.id,
              name: r.name,
              shortDescription: { text: r.summary },
              fullDescription: { text: r.summary },
              help: { text: r.help },
              defaultConfiguration: { level: LEVEL[r.severity] },
              properties: { tags: ['security', 'mcp', 'tool-poisoning'], 'security-severity': SCORE[r.severity], severity: r.severity },
            })),
          },
        },
        columnKind: 'utf16CodeUnits',
        results: findings.map((f) => {
          const line = options.lineOf?.(f.server, f.tool);
          return {
            ruleId: f.rule,
            ruleIndex: index.get(f.rule) ?? -1,
            level: LEVEL[f.severity],
            message: { text: `${f.server}/${f.tool} ${f.field}: ${f.message}` },
            locations: [
              {
                physicalLocation: { artifactLocation: { uri: options.lockUri }, ...(line ? { region: { startLine: line } } : {}) },
                logicalLocations: [{ fullyQualifiedName: `${f.server}/${f.tool}/${f.field}`, kind: 'member' }],
              },
            ],
            partialFingerprints: {
              'mcpkitFinding/v1': createHash('sha256').update(`${f.rule}\u0000${f.server}\u0000${f.tool}\u0000${f.field}\u0000${f.excerpt}`).digest('hex'),
            },
            properties: { severity: f.severity, server: f.server, tool: f.tool, field: f.field, ...(f.span ? { span: f.span } : {}) },
          };
        }),
      },
    ],
  };
}

/** The 1-based line of `tool` under `server` in a lock file's text (servers at two spaces, tools at four). Pure. */
export function lockLine(text: string, server: string, tool: string): number | undefined {
  const lines = text.split('\n');
  const key = (name: string) =>
    new RegExp(`^(${escapeRegExp(name)}|"${escapeRegExp(JSON.stringify(name).slice(1, -1))}"|'${escapeRegExp(name)}'):\\s*(\\{\\})?\\s*$`);
  const serverAt = lines.findIndex((l) => l.startsWith('  ') && !l.startsWith('   ') && key(server).test(l.slice(2)));
  if (serverAt < 0) return undefined;
  for (let i = serverAt + 1; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^ {0,2}\S/.test(l)) break;
    if (l.startsWith('    ') && !l.startsWith('     ') && key(tool).test(l.slice(4))) return i + 1;
  }
  return serverAt + 1;
}
