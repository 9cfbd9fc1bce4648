import type { Tool } from '@modelcontextprotocol/server';
import { readPins, updatePins, type PinFile } from '../config/pin-file.js';
import { stableJson } from '../core/stable-json.js';
import type { Logger } from '../core/logger.js';
import { admitTools, differingMessage, pinOf, type PinMode, type PinVerdict, type ServerPins } from './pins.js';

/**
 * The process's copy of the tool pins (../config/pin-file.ts), which every hub's catalog asks
 * what of a server's listing may be served (./pins.ts, admitTools). A server with no pins is
 * pinned on first use: written to the lock file at once, and said once. `refresh` re-reads the
 * file (serve: it changed on disk, an approval) and names the servers whose pins changed.
 */
export class PinKeeper {
  private pins: PinFile;
  /** The file could not be read: nothing is pinned on first use over it, and nothing unpinned is served (fail closed). */
  private broken = false;
  private readonly said = new Set<string>();

  constructor(
    readonly path: string,
    private readonly logger: Logger,
    /** Where first-use pinning and a changed tool are said (serve: stderr). */
    private readonly say: (line: string) => void,
    /**
     * Whether a server without pins may be trusted on first use: only where a person started it.
     * A server an agent added, or one that appeared in the config while serve runs, is not: its
     * tools wait for a person's approval.
     */
    private readonly mayTrustFirstUse: (server: string) => boolean = () => true,
  ) {
    this.pins = this.read() ?? { version: 1, servers: {} };
  }

  of(server: string): ServerPins | undefined {
    return this.pins.servers[server] ?? (this.broken ? {} : undefined);
  }

  /** What of the server's listing is served under `mode`; first use pins it. */
  admit(server: string, tools: readonly Tool[], mode: PinMode, pinFirstUse = true): PinVerdict {
    const pins = this.of(server);
    const verdict = admitTools(tools, pins, mode, pins !== undefined || this.mayTrustFirstUse(server));
    if (verdict.firstUse && pinFirstUse) this.pinFirstUse(server, tools);
    for (const { tool, why } of verdict.differing) {
      const key = `${server}\u0000${tool.name}\u0000${pinOf(tool).sha256}\u0000${mode}`;
      if (this.said.has(key)) continue;
      this.said.add(key);
      this.logger.warn(differingMessage(server, tool.name, why, mode));
    }
    return verdict;
  }

  /** How many of a server's listed tools its pins withhold under `mode` (quietly: /health, server list). */
  withheldCount(server: string, tools: readonly Tool[], mode: PinMode): number {
    const pins = this.of(server);
    return admitTools(tools, pins, mode, pins !== undefined || this.mayTrustFirstUse(server)).differing.filter((d) => d.withheld).length;
  }

  /** Reads the file again; the servers whose pins differ from the copy held. */
  refresh(): string[] {
    const before = this.pins;
    this.pins = this.read() ?? before;
    const names = new Set([...Object.keys(before.servers), ...Object.keys(this.pins.servers)]);
    return [...names].filter((name) => stableJson(before.servers[name]) !== stableJson(this.pins.servers[name]));
  }

  private pinFirstUse(server: string, tools: readonly Tool[]): void {
    const pins = Object.fromEntries(tools.map((t) => [t.name, pinOf(t)])) as ServerPins;
    this.pins = { ...this.pins, servers: { ...this.pins.servers, [server]: pins } };
    this.say(
      `pinned the ${tools.length} tools of server "${server}" on first use (${this.path}); a tool that changes${tools.length ? '' : ' or appears'} is withheld until approved`,
    );
    // Another process may have pinned it meanwhile: the file keeps the first pins written.
    void updatePins(this.path, (file) => {
      if (file.servers[server]) return false;
      file.servers[server] = pins;
      return true;
    }).catch((error: Error) => this.logger.warn(`tool pins: cannot write ${this.path}: ${error.message}`));
  }

  private read(): PinFile | undefined {
    try {
      const pins = readPins(this.path);
      this.broken = false;
      return pins;
    } catch (error) {
      this.broken = true;
      this.logger.warn(`${(error as Error).message} The pins held so far stay in force; tools never pinned are withheld.`);
      return undefined;
    }
  }
}
