import { ToolError } from './errors.js';

/** Names closest to a mistyped one, for "did you mean" hints. */
export function closestNames(wanted: string, names: readonly string[], max = 3): string[] {
  const scored = names
    .map((name) => ({ name, d: editDistance(wanted.toLowerCase(), name.toLowerCase()) }))
    .filter(({ name, d }) => d <= Math.max(2, Math.floor(name.length / 3)) || name.includes(wanted) || wanted.includes(name));
  scored.sort((a, b) => a.d - b.d || (a.name < b.name ? -1 : 1));
  return scored.slice(0, max).map(({ name }) => name);
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The NOT_FOUND error for a name the user typed: says what was not found and suggests the closest
 * known names, or `otherwise` when none is close.
 */
export function notFound(what: string, name: string, known: readonly string[], otherwise: string, details: Record<string, unknown> = {}): ToolError {
  const similar = closestNames(name, known);
  return new ToolError('NOT_FOUND', `No ${what} named "${name}"${what === 'tool' ? '' : ' in the config'}.`, {
    details: { [what.replace(/ /g, '_')]: name, similar, ...details },
    hint: similar.length ? `Did you mean ${similar.join(', ')}? ${otherwise}` : otherwise,
  });
}

/** NOT_FOUND for a server name the config does not have, with the names it does. */
export function unknownServer(name: string, names: readonly string[]): ToolError {
  return notFound('server', name, names, '"mcpkit server list" shows the configured servers.');
}
