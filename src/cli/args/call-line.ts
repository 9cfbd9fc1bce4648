import { parsePlainLine, type PlainGrammar } from './plain-line.js';

export interface CallLine {
  name: string;
  pairs: string[];
  base: Record<string, unknown>;
  json: boolean;
  config?: string;
  view?: string;
}

const CALL_GRAMMAR: PlainGrammar = { json: { type: 'boolean' }, config: { type: 'string' }, view: { type: 'string' }, args: { type: 'string', short: 'a' } };

/**
 * The plain command lines of `mcpkit call` (NAME, key=value pairs, --json, --config, --view, --args with
 * a JSON object), read by the one plain grammar (plain-line.ts) so that the daemon runs them
 * without oclif; undefined for anything else (oclif's command reads stdin, refuses bad --args,
 * prints help). Pure.
 */
export function parseCallLine(argv: readonly string[]): CallLine | undefined {
  const [name, ...rest] = argv;
  if (!name || name.startsWith('-')) return undefined;
  const line = parsePlainLine(CALL_GRAMMAR, rest);
  // Words that are not key=value, and `--` (after which anything is a word), are oclif's to report.
  if (!line || line.terminated || !line.positionals.every((word) => word.includes('='))) return undefined;
  const { json, config, view, args } = line.values as { json?: boolean; config?: string; view?: string; args?: string };
  if (config === '' || view === '') return undefined;
  const out: CallLine = {
    name,
    pairs: line.positionals,
    base: {},
    json: json === true,
    ...(config !== undefined ? { config } : {}),
    ...(view !== undefined ? { view } : {}),
  };
  if (args !== undefined) {
    // Text that is not a JSON object: oclif's command refuses it.
    try {
      const value: unknown = JSON.parse(args);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
      out.base = value as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  return out;
}
