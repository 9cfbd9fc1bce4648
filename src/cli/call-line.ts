export interface CallLine {
  name: string;
  pairs: string[];
  base: Record<string, unknown>;
  json: boolean;
  config?: string;
}

/**
 * The plain command lines of `mcpkit call` (NAME, key=value pairs, --json, --config, --args with
 * a JSON object), which mcpkit daemon runs without oclif; undefined for anything else (oclif's
 * command reads stdin, refuses bad --args, prints help). Pure.
 */
export function parseCallLine(argv: readonly string[]): CallLine | undefined {
  const [name, ...rest] = argv;
  if (!name || name.startsWith('-')) return undefined;
  const out: CallLine = { name, pairs: [], base: {}, json: false };
  let args: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]!;
    if (token === '--json' && !out.json) out.json = true;
    else if (token === '--config' && out.config === undefined && rest[i + 1] !== undefined && !rest[i + 1]!.startsWith('-')) out.config = rest[++i];
    else if (token.startsWith('--config=') && out.config === undefined && token.length > 9) out.config = token.slice(9);
    else if ((token === '--args' || token === '-a') && args === undefined && rest[i + 1] !== undefined) args = rest[++i];
    else if (token.startsWith('--args=') && args === undefined) args = token.slice(7);
    else if (!token.startsWith('-') && token.includes('=')) out.pairs.push(token);
    else return undefined;
  }
  if (args !== undefined) {
    // stdin, or text that is not a JSON object: oclif's command reads or refuses it.
    if (args === '-') return undefined;
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
