/** The sources (src/...ts) of the hook files package.json's oclif.hooks names. */
export function oclifHookSources(oclif: { hooks?: Record<string, unknown> } | undefined): string[];
