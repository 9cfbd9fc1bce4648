import type { Tool } from '@modelcontextprotocol/server';
import { dropsBetween, dropsOf, readPins, sectionOf, updatePins, type PinFile } from '../../config/files/pin-file.js';
import { stableJson } from '../../core/stable-json.js';
import { alarming, scanTools } from './scan.js';
import { approvedTools } from './lock-listing.js';
import type { Logger } from '../../core/logger.js';
import {
  admitItems,
  admitTools,
  differingMessage,
  keyOf,
  mayTrustFirstUse,
  PIN_KINDS,
  pinOfItem,
  type ItemVerdict,
  type PinKind,
  type PinMode,
  type PinVerdict,
  type ServerPins,
  withheldCount,
} from './pins.js';

/** What a PinKeeper asks of the config served now. */
export interface PinKeeperConfig {
  /** The server's entry (undefined: none). Its content is who the server is: pins held for one entry never pass to another. */
  entryOf(server: string): { added_by?: string } | undefined;
  /** serve with serve.list_from_lock: a listing answers from the lock while a server starts (./lock-listing.ts). */
  lockAnswersListings(): boolean;
  /** The drop counts (PinFile.approvals_dropped) in the lock as read with the config served now (config/files/read-with-pins.ts); undefined: not known. */
  dropsAtLoad(): Record<string, number> | undefined;
}

/**
 * The process's copy of the pins (../config/pin-file.ts), which every hub asks what of a server's
 * listing may be served: its tools (the catalog), prompts, resources and templates (the prompt
 * and resource router). A server with no pins of a kind is pinned on first use where that is
 * allowed (mayTrustFirstUse): written to the lock file at once, and said once. `refresh` re-reads
 * the file (serve: it changed on disk, an approval) and names the servers whose pins changed.
 *
 * A server replaced under its name (an agent's server_add with force) has its pins dropped in the
 * file before the config names the new one, and this process sees the two changes at its own
 * pace. Three rules keep the old approvals from reaching the new server in between: pins held
 * for an entry other than the one served now approve nothing until the file is read again
 * (`heldFor`); a server whose approvals were dropped is not pinned on first use again while its
 * entry is the one they were dropped under (`droppedUnder`); and first-use pins are written only
 * if no drop was counted since they were made (PinFile.approvals_dropped).
 *
 * A keeper made after the config was read (serve before its first listing, a one-shot command
 * that never reloads) takes a drop counted since as made under the entries read (`dropsAtLoad`,
 * the lock read with the config: config/files/read-with-pins.ts), as a reload's `refresh` does.
 * That read pairs the config with the lock as it was before it (an edit that lands during it is
 * read again, both files); where it cannot (the edit lock held, a lock file that keeps changing)
 * it fails closed: every drop counted is taken as made since, so a server whose approvals were
 * ever dropped is withheld in this process until it is approved, its entry changes or the
 * process restarts.
 */
export class PinKeeper {
  private pins: PinFile;
  /** The file could not be read: nothing is pinned on first use over it, and nothing unpinned is served (fail closed). */
  private broken = false;
  private readonly said = new Set<string>();
  /** First-use pins waiting to be written, or being written (a reload meanwhile must not take them for a change), with the drop count they were made under. */
  private readonly writing = new Map<string, [PinKind, string, ServerPins, number]>();
  /** The identity (entryIdentity) of the entry each server's pins were read or made under. */
  private readonly heldFor = new Map<string, string | undefined>();
  /** Servers whose approvals were dropped, and the identity of their entry then. */
  private readonly droppedUnder = new Map<string, string | undefined>();
  private readonly identities = new WeakMap<object, string>();
  private flushing?: NodeJS.Timeout;
  private writingNow?: Promise<void>;
  /** Servers whose capability sets changed and are waiting to be written, with the drop count they were recorded under. */
  private readonly setsWriting = new Map<string, number>();

  constructor(
    readonly path: string,
    private readonly logger: Logger,
    /** Where first-use pinning and a changed tool are said (serve: stderr). */
    private readonly say: (line: string) => void,
    private readonly config: PinKeeperConfig,
  ) {
    this.pins = this.read() ?? { version: 1, servers: {} };
    this.holdAll();
    // Drops counted since the config served now was read were made under its entries, as a reload's (see the class).
    const atLoad = config.dropsAtLoad();
    for (const server of atLoad ? dropsBetween(atLoad, this.pins.approvals_dropped ?? {}) : []) this.droppedUnder.set(server, this.identityOf(server));
  }

  of(server: string, kind: PinKind = 'tools'): ServerPins | undefined {
    return sectionOf(this.pins, kind)[server] ?? (this.broken ? {} : undefined);
  }

  /** The tools the lock approves for the server, where a listing may answer with them while it starts (serve only). */
  approved(server: string): Tool[] | undefined {
    return this.config.lockAnswersListings() && !this.broken && !this.changing(server) ? approvedTools(this.of(server)) : undefined;
  }

  /**
   * What of the server's tools is served under `mode`; first use pins them. `capabilities`: what the
   * listing's connection offered the server (a live listing only), which decides what it lists.
   */
  admit(server: string, tools: readonly Tool[], mode: PinMode, pinFirstUse = true, capabilities?: string): PinVerdict {
    if (this.changing(server)) return { served: mode === 'enforce' ? [] : [...tools], differing: [], firstUse: false };
    if (pinFirstUse && capabilities !== undefined && mode !== 'off') this.capabilitySetFirstUse(server, tools, capabilities);
    const verdict = admitTools(tools, this.of(server), mode, this.firstUseAllowed(server, 'tools'));
    if (verdict.firstUse && pinFirstUse && capabilities !== undefined) this.recordSet(server, capabilities);
    this.after(
      'tools',
      server,
      tools,
      verdict.firstUse && pinFirstUse,
      mode,
      verdict.differing.map((d) => ({ item: d.tool, key: d.tool.name, why: d.why })),
    );
    return verdict;
  }

  /** What of a server's prompts, resources or templates is served under `mode`; first use pins them. */
  admitItems<T extends object>(kind: Exclude<PinKind, 'tools'>, server: string, items: readonly T[], mode: PinMode): ItemVerdict<T> {
    if (this.changing(server)) return { served: mode === 'enforce' ? [] : [...items], differing: [], firstUse: false };
    const verdict = admitItems(kind, items, this.of(server, kind), mode, this.firstUseAllowed(server, kind));
    this.after(kind, server, items, verdict.firstUse, mode, verdict.differing);
    return verdict;
  }

  /** How many of a server's listed tools its pins withhold under `mode` (quietly: /health, server list). */
  withheldCount(server: string, tools: readonly Tool[], mode: PinMode): number {
    if (this.changing(server)) return mode === 'enforce' ? tools.length : 0;
    return withheldCount(tools, this.of(server), mode, this.firstUseAllowed(server, 'tools'));
  }

  /**
   * Reads the file again; the servers whose pins differ from the copy held, or whose entry is
   * another than the one their pins were held for (their listings are to be admitted again).
   * `entryBefore`: the entries served before the reload this follows, under which a drop found
   * now was made (a replaced server's new entry is not the one whose approvals were dropped).
   */
  refresh(entryBefore: PinKeeperConfig['entryOf'] = this.config.entryOf): string[] {
    const before = this.pins;
    this.pins = this.read() ?? before;
    const entryChanged = [...this.heldFor.keys()].filter((server) => this.changing(server));
    for (const server of dropsBetween(before.approvals_dropped ?? {}, this.pins.approvals_dropped ?? {}))
      this.droppedUnder.set(server, this.identityOfEntry(entryBefore(server)));
    // Once the config names something else under the name (the new server, or none), the rule has
    // done its part: an entry added again later, as it was, is a person's to trust as any other.
    for (const [server, identity] of this.droppedUnder) if (identity !== this.identityOf(server)) this.droppedUnder.delete(server);
    // First-use pins still on their way to the file are this process's: they stay, and are no change (unless dropped since).
    for (const [kind, server, pins, drops] of this.writing.values()) {
      if (drops !== dropsOf(this.pins, server)) continue;
      const own = (sectionOf(this.pins, kind)[server] ??= {});
      for (const [key, pin] of Object.entries(pins)) if (!Object.hasOwn(own, key)) own[key] = pin;
    }
    this.holdAll();
    for (const [server, drops] of this.setsWriting) {
      if (drops !== dropsOf(this.pins, server)) continue;
      const inFile = ((this.pins.capability_sets ??= {})[server] ??= []);
      for (const set of before.capability_sets?.[server] ?? []) if (!inFile.includes(set)) inFile.push(set);
    }
    const kinds = Object.keys(PIN_KINDS) as PinKind[];
    const names = new Set(kinds.flatMap((kind) => [...Object.keys(sectionOf(before, kind)), ...Object.keys(sectionOf(this.pins, kind))]));
    const differ = [...names].filter((name) =>
      kinds.some((kind) => stableJson(sectionOf(before, kind)[name]) !== stableJson(sectionOf(this.pins, kind)[name])),
    );
    return [...new Set([...differ, ...entryChanged])];
  }

  /** Who the server is: its entry's content (undefined: the config names no such server). */
  private identityOf(server: string): string | undefined {
    return this.identityOfEntry(this.config.entryOf(server));
  }

  private identityOfEntry(entry: object | undefined): string | undefined {
    if (!entry) return undefined;
    let identity = this.identities.get(entry);
    if (identity === undefined) this.identities.set(entry, (identity = stableJson(entry)));
    return identity;
  }

  /** The pins of every server in the copy just read are held for the entry served now. */
  private holdAll(): void {
    this.heldFor.clear();
    const kinds = Object.keys(PIN_KINDS) as PinKind[];
    for (const server of new Set(kinds.flatMap((kind) => Object.keys(sectionOf(this.pins, kind))))) this.heldFor.set(server, this.identityOf(server));
  }

  /**
   * The config names another entry under the server's name than the one its pins were held for:
   * the file has not been read since (refresh follows every reload), so the pins held may be of
   * the server that was there. Nothing is admitted by them, and nothing is pinned meanwhile.
   * Pins read while the config named no such server (not loaded yet; a server added by hand
   * under a name with pins left) are held for the first entry that comes.
   */
  private changing(server: string): boolean {
    const held = this.heldFor.get(server);
    if (held !== undefined) return held !== this.identityOf(server);
    if (this.heldFor.has(server)) this.heldFor.set(server, this.identityOf(server));
    return false;
  }

  /**
   * A listing under client capabilities the server's tools were never pinned under (a 2026 client's
   * connection offers elicitation and sampling; server-everything then lists three more tools): what
   * it lists beyond its pins is pinned on first use too, where first use is trusted, so a person
   * approves a server once, not once per capability set. A changed tool stays withheld. Pins from
   * before capability sets were recorded count as made under the first set seen.
   */
  private capabilitySetFirstUse(server: string, tools: readonly Tool[], capabilities: string): void {
    const pins = this.of(server);
    if (pins === undefined || this.broken) return;
    const sets = this.pins.capability_sets?.[server] ?? [];
    if (sets.includes(capabilities)) return;
    const firstSet = sets.length === 0;
    this.recordSet(server, capabilities);
    if (firstSet || !mayTrustFirstUse(this.config.entryOf(server))) return;
    const added = tools.filter((t) => !Object.hasOwn(pins, t.name));
    if (!added.length) return;
    const more = Object.fromEntries(added.map((t) => [t.name, pinOfItem('tools', t)])) as ServerPins;
    Object.assign(pins, more);
    this.say(
      `pinned ${added.length} more tools of server "${server}", which it lists to a client offering ${capabilities || 'no capabilities'}, on first use (${this.path}): ${added.map((t) => t.name).join(', ')}`,
    );
    this.queue('tools', server, more);
  }

  /** The capability set a server's tools are now pinned under, written with the next batch. */
  private recordSet(server: string, capabilities: string): void {
    const sets = ((this.pins.capability_sets ??= {})[server] ??= []);
    if (!sets.includes(capabilities)) sets.push(capabilities);
    this.setsWriting.set(server, dropsOf(this.pins, server));
    this.flushing ??= setTimeout(() => void this.flush(), 20);
  }

  /** No pins of the kind yet, and the server may be trusted on first use: a person added it, and it is not the entry whose approvals were dropped. */
  private firstUseAllowed(server: string, kind: PinKind): boolean {
    if (this.of(server, kind) !== undefined) return true;
    if (this.droppedUnder.has(server) && this.droppedUnder.get(server) === this.identityOf(server)) return false;
    return mayTrustFirstUse(this.config.entryOf(server));
  }

  private after(
    kind: PinKind,
    server: string,
    items: readonly object[],
    pinNow: boolean,
    mode: PinMode,
    differing: { item: object; key: string; why: 'new' | 'changed' | 'tampered' }[],
  ): void {
    if (pinNow) this.pinFirstUse(kind, server, items);
    for (const { item, key, why } of differing) {
      const said = `${kind}\u0000${server}\u0000${key}\u0000${pinOfItem(kind, item).sha256}\u0000${mode}`;
      if (this.said.has(said)) continue;
      this.said.add(said);
      this.logger.warn(differingMessage(server, key, why, mode, PIN_KINDS[kind].noun));
    }
  }

  private pinFirstUse(kind: PinKind, server: string, items: readonly object[]): void {
    const pins = Object.fromEntries(items.map((item) => [keyOf(kind, item), pinOfItem(kind, item)])) as ServerPins;
    sectionOf(this.pins, kind)[server] = pins;
    this.heldFor.set(server, this.identityOf(server));
    const noun = PIN_KINDS[kind].noun;
    this.say(
      `pinned the ${items.length} ${noun}s of server "${server}" on first use (${this.path}); a ${noun} that changes${items.length ? '' : ' or appears'} is withheld until approved`,
    );
    // Trust on first use is trust in what was there: what reads as an attack is said at once,
    // after this listing has been answered (the scan is not on its way).
    setImmediate(() => {
      const found = alarming(
        scanTools(
          items.map((item) => ({ server, tool: keyOf(kind, item), definition: pinOfItem(kind, item).definition, ...(kind === 'tools' ? {} : { kind }) })),
        ),
      );
      if (!found.length) return;
      const where = [...new Set(found.map((f) => `${f.tool} (${f.name})`))].join(', ');
      this.say(
        `! server "${server}": what was just pinned reads as an attack on the model: ${where}. Review with: mcpkit server scan ${server}; remove it with: mcpkit server remove ${server}`,
      );
    });
    // Written with the others pinned meanwhile, in one go: the lock file is made whole each time,
    // and fifty servers listed at once would otherwise write it fifty times.
    this.queue(kind, server, pins);
  }

  /** Pins to add to the file with the next batch (each kept where the file has that item already). */
  private queue(kind: PinKind, server: string, pins: ServerPins): void {
    const key = `${kind}\u0000${server}`;
    const waiting = this.writing.get(key);
    this.writing.set(key, [kind, server, { ...waiting?.[2], ...pins }, dropsOf(this.pins, server)]);
    this.flushing ??= setTimeout(() => void this.flush(), 20);
  }

  /**
   * Writes the first-use pins waiting now instead of with the next batch, and waits for the batch
   * being written, whoever started it: two closes at once (SIGINT, then SIGTERM) both end with the
   * pins written.
   */
  async writePending(): Promise<void> {
    await this.writingNow;
    if (this.flushing) {
      clearTimeout(this.flushing);
      this.flushing = undefined;
      void this.flush();
    }
    await this.writingNow;
  }

  /** Writes the first-use pins waiting; another process may have pinned a server meanwhile: the file keeps the first pins written. */
  private flush(): Promise<void> {
    return (this.writingNow = this.writeBatch());
  }

  private async writeBatch(): Promise<void> {
    const batch = [...this.writing.entries()];
    const sets = [...this.setsWriting].map(([server, drops]) => [server, drops, [...(this.pins.capability_sets?.[server] ?? [])]] as const);
    this.setsWriting.clear();
    try {
      await updatePins(this.path, (file) => {
        let changed = false;
        for (const [, [kind, server, pins, drops]] of batch) {
          // The server's approvals were dropped since these were made (replaced, removed): they were the old one's.
          if (drops !== dropsOf(file, server)) continue;
          const section = sectionOf(file, kind);
          const own = (section[server] ??= {});
          changed = true;
          for (const [key, pin] of Object.entries(pins)) if (!Object.hasOwn(own, key)) own[key] = pin;
        }
        for (const [server, drops, known] of sets) {
          if (drops !== dropsOf(file, server)) continue;
          const inFile = ((file.capability_sets ??= {})[server] ??= []);
          for (const set of known.filter((k) => !inFile.includes(k))) {
            inFile.push(set);
            changed = true;
          }
        }
        return changed;
      });
    } catch (error) {
      this.logger.warn(`tool pins: cannot write ${this.path}: ${(error as Error).message}`);
    } finally {
      for (const [key, entry] of batch) if (this.writing.get(key) === entry) this.writing.delete(key);
      this.flushing = undefined;
      if (this.writing.size || this.setsWriting.size) this.flushing = setTimeout(() => void this.flush(), 20);
    }
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
