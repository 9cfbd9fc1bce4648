/**
 * Which scopes a login asks for (MCP 2025-11-25, scope selection strategy): what the server's
 * challenge names, else what the config names (the SDK falls back to the resource metadata's
 * scopes_supported when both are empty); plus any scope a server asked for later in a 403
 * insufficient_scope (step-up), so the next login covers it.
 */
export function loginScope(challenge: string | undefined, stepUp: string | undefined, configured: readonly string[] | undefined): string | undefined {
  const base = words(challenge).length ? words(challenge) : [...(configured ?? [])];
  return joinScopes([...base, ...words(stepUp)]);
}

/** Scope strings joined without repeats, in first-seen order; undefined for none. */
export function joinScopes(scopes: Iterable<string>): string | undefined {
  const seen = [...new Set([...scopes].flatMap((s) => words(s)))];
  return seen.length ? seen.join(' ') : undefined;
}

/** Whether every scope of `needed` is in `granted`. */
export function covers(granted: string | undefined, needed: string | undefined): boolean {
  const have = new Set(words(granted));
  return words(needed).every((s) => have.has(s));
}

function words(scope: string | undefined): string[] {
  return (scope ?? '').split(/\s+/).filter(Boolean);
}
