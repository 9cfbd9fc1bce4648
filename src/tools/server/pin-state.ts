import type { McpkitConfig } from '../../config/schema/schema.js';
import { DEFAULT_PIN_MODE, type PinMode } from '../../config/schema/defaults.js';
import type { ToolContext } from '../../tool/context.js';

/** How tool pinning stands for a server, without starting it: `server list` and `server show`. */
export interface PinState {
  pinning: PinMode;
  /** Tools approved in the lock file; null: none yet (the server is pinned on first use, or waits for an approval). */
  approved_tools: number | null;
  /** Of the tools the last terminal listing saw, how many are withheld now (unknown: no listing yet). */
  withheld?: number;
  /** Pins in the lock file that do not match their own hash. */
  tampered?: number;
}

/** Each named server's pin state, from the lock file and the last listing a terminal command saw. A lock file that cannot be read: none. */
export async function pinStates(ctx: ToolContext, names: readonly string[], config: McpkitConfig | undefined): Promise<Map<string, PinState>> {
  if (!config) return new Map();
  const [{ pinFilePath, readPins }, { withheldCount, mayTrustFirstUse, tamperedPins }] = await Promise.all([
    import('../../config/files/pin-file.js'),
    import('../../proxy/pins/pins.js'),
  ]);
  let lock;
  try {
    lock = readPins(pinFilePath(ctx.configLocation.path));
  } catch {
    return new Map();
  }
  const out = new Map<string, PinState>();
  for (const name of names) {
    const entry = config.mcp_servers[name];
    if (!entry) continue;
    const pinning = entry.pinning ?? config.pinning ?? DEFAULT_PIN_MODE;
    const pins = lock.servers[name];
    const listed = ctx.servers.lastListing?.(name, entry);
    const tampered = pins ? tamperedPins(pins).length : 0;
    const held = listed && pinning !== 'off' ? withheldCount(listed, pins, pinning, pins !== undefined || mayTrustFirstUse(entry)) : undefined;
    out.set(name, {
      pinning,
      approved_tools: pins ? Object.keys(pins).length : null,
      ...(held !== undefined ? { withheld: held } : {}),
      ...(tampered ? { tampered } : {}),
    });
  }
  return out;
}

/** One cell for `server list`: "12", "12, 2 withheld", "none yet", "off". */
export function pinCell(state: PinState | undefined): string {
  if (!state) return '';
  if (state.pinning === 'off') return 'off';
  const approved = state.approved_tools === null ? 'none yet' : String(state.approved_tools);
  const held = state.withheld ? `, ${state.withheld} withheld` : '';
  return `${approved}${held}${state.tampered ? `, ${state.tampered} tampered` : ''}`;
}
