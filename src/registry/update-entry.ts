/**
 * What `registry update` writes: the new version's launch (command, args, url, transport) over the
 * entry as written, keeping what the person set there (its env and header values, filters, tool
 * lists and overrides, timeouts, sandbox, pinning, description), and the provenance moved on. Pure:
 * entries as written, placeholders intact.
 */
const LAUNCH_KEYS = ['command', 'args', 'url', 'transport'] as const;

export function updatedEntry(
  old: Readonly<Record<string, unknown>>,
  fresh: Readonly<Record<string, unknown>>,
  registry: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...old };
  for (const key of LAUNCH_KEYS) {
    if (fresh[key] !== undefined) out[key] = fresh[key];
    else delete out[key];
  }
  // Variables and headers the new version declares are added; those set before keep their values.
  for (const key of ['env', 'headers'] as const) {
    const merged = { ...(fresh[key] as Record<string, unknown> | undefined), ...(old[key] as Record<string, unknown> | undefined) };
    if (Object.keys(merged).length) out[key] = merged;
  }
  if (out.description === undefined && fresh.description !== undefined) out.description = fresh.description;
  out.registry = registry;
  return out;
}
