import type { Runtime } from '../app/runtime.js';
import type { ConfigSource } from '../config/locate.js';
import type { NameKind } from './completion-names.js';

/** What a name offered to a shell may hold: MCP's tool name characters, and nothing a shell expands. */
const SAFE_NAME = /^[A-Za-z0-9_./-]{1,128}$/;

/**
 * The config's names of one kind, as tab completion offers them: `complete-names` through oclif and
 * its fast path (./complete-names-fast-path.ts) both print these, so a tab press offers the same either way.
 * bash's compgen -W expands the words it is given ($(...) included): a name from an upstream's
 * listing that is more than a name is never offered, so a tab press runs nothing of a server's.
 */
export async function completionNames(location: ConfigSource, kind: NameKind, runtime: () => Runtime | Promise<Runtime>): Promise<string[]> {
  return (await configNames(location, kind, runtime)).filter((name) => SAFE_NAME.test(name));
}

/** `runtime` is asked for only by `tools`: what every other kind reads is the file, and a runtime loads far more (a tab press waits on it). */
async function configNames(location: ConfigSource, kind: NameKind, runtime: () => Runtime | Promise<Runtime>): Promise<string[]> {
  if (kind === 'tools') {
    // The names call takes: mcpkit's own, and each server's as it last listed them (none is started).
    const { listKnownTools } = await import('./upstream-calls.js');
    const made = await runtime();
    const own = (await made.offeredTools()).map((t) => t.name);
    const known = await listKnownTools(made, new Set(own)).catch(() => ({ tools: [] as { name: string }[] }));
    return [...own, ...known.tools.map((t) => t.name)];
  }
  // As written: a name whose entry this shell cannot resolve (an unset ${VAR}) is still a name. Not
  // checked, nor its secrets read: a tab press needs neither the schema nor a keyring.
  const { configAsWritten } = await import('../config/as-written.js');
  const raw = (await configAsWritten(location)) as Record<string, Record<string, unknown> | undefined>;
  const keys = (section: unknown) => Object.keys((section as object | undefined) ?? {});
  switch (kind) {
    case 'servers':
      return keys(raw.mcp_servers);
    case 'views':
      return keys(raw.tool_views);
    case 'clients':
      return keys(raw.serve?.clients);
    case 'composites':
      return keys(raw.composite_tools);
    case 'roots':
      return keys((raw.retrieve as { roots?: unknown } | undefined)?.roots);
  }
}
