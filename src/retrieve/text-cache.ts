/**
 * File text that a long-running process keeps in memory (file-index.ts), in a few large blocks:
 * one Buffer per file would cost more in object overhead and garbage collection than the text.
 *
 * What is kept:
 * - While the budget has room, any file's text (the first searches of a tree find it there).
 * - Once it is full, only text that a search had to read from disk makes room for itself, and
 *   only at the cost of text that no later search used. The oldest block is emptied: what the
 *   searches since that search used is copied forward, the rest is dropped. Dropped too: the
 *   space of copies whose file changed (they are not reclaimed one by one).
 * - A search whose candidates are more than the budget keeps what it first got, rather than
 *   evicting its own text to read the rest in turn (which would make every repeat of it miss).
 *
 * Searches are numbered (`next()`); a text records the last search that used it.
 */
export interface Cached {
  /** The text's copy in a block; absent when not kept. */
  content?: Buffer;
  /** The last search (TextCache.next) that used this text, or read its file for want of it; 0 for none. */
  used?: number;
}

interface Block {
  buffer: Buffer;
  /** Bytes filled. */
  filled: number;
  /** Whose text was copied in (one forgotten since is dead space). */
  entries: Cached[];
}

export class TextCache {
  /** Oldest first; the last one is being filled. */
  private blocks: Block[] = [];
  private search = 0;
  /** Every kept text was used by this search or a later one: none of its candidates may evict them. */
  private fullFor = 0;

  constructor(
    private readonly budget: number,
    /** Block size, which is also the largest text kept. */
    readonly blockBytes = 16 * 1024 * 1024,
  ) {}

  /** A new search's number. */
  next(): number {
    return ++this.search;
  }

  get allocated(): number {
    return this.blocks.length * this.blockBytes;
  }

  /** Bytes of live text (each kept copy once). */
  live(): number {
    const counted = new Set<Cached>();
    let bytes = 0;
    for (const block of this.blocks) {
      for (const entry of block.entries) {
        if (!counted.has(entry) && holds(block, entry)) bytes += entry.content!.length;
        counted.add(entry);
      }
    }
    return bytes;
  }

  /** Whether keep() could take `len` bytes for this entry now (so reading its file for it is worth it). */
  mayKeep(entry: Cached, len: number): boolean {
    if (len > this.blockBytes || this.budget < 2 * this.blockBytes) return false;
    return this.lastWithRoom(len) !== undefined || this.mayAdd() || (entry.used ?? 0) > this.fullFor;
  }

  /** Copies `source`'s first `len` bytes as the entry's text; false when there is no room for it (see above). */
  keep(entry: Cached, source: Uint8Array, len: number): boolean {
    if (!this.mayKeep(entry, len)) return false;
    const block = this.lastWithRoom(len) ?? (this.mayAdd() ? this.add() : this.recycle(entry.used ?? 0, len));
    if (!block) return false;
    put(block, entry, source, len);
    return true;
  }

  /** The block being filled, when `len` more bytes fit in it. */
  private lastWithRoom(len: number): Block | undefined {
    const last = this.blocks.at(-1);
    return last && last.filled + len <= this.blockBytes ? last : undefined;
  }

  /** Whether the budget has room for one more block. */
  private mayAdd(): boolean {
    return this.allocated + this.blockBytes <= this.budget;
  }

  private add(): Block {
    // Its own ArrayBuffer (larger than Buffer's pool), by which holds() tells its copies.
    const block: Block = { buffer: Buffer.allocUnsafeSlow(this.blockBytes), filled: 0, entries: [] };
    this.blocks.push(block);
    return block;
  }

  /**
   * Room for `len` bytes of text that search `search` read, from the oldest blocks that hold
   * anything older than it (or dead): each is emptied into a fresh block, keeping the texts that
   * search or a later one used. Undefined, and nothing copied, when none holds anything older.
   */
  private recycle(search: number, len: number): Block | undefined {
    if (search <= this.fullFor) return undefined;
    for (let turn = this.blocks.length; turn > 0; turn--) {
      const oldest = this.blocks[0]!;
      if (!oldest.entries.some((entry) => !holds(oldest, entry) || (entry.used ?? 0) < search)) {
        // Nothing to drop here: it goes last as it is (no copy), and the next block is tried.
        this.blocks.push(this.blocks.shift()!);
        continue;
      }
      this.blocks.shift();
      const fresh = this.add();
      for (const entry of oldest.entries) {
        if (!holds(oldest, entry)) continue;
        const text = entry.content!;
        entry.content = undefined;
        if ((entry.used ?? 0) >= search) put(fresh, entry, text, text.length);
      }
      if (fresh.filled + len <= this.blockBytes) return fresh;
    }
    this.fullFor = search;
    return undefined;
  }
}

/** Whether the entry's text is still its copy in this block (it is forgotten when its file changes). */
function holds(block: Block, entry: Cached): boolean {
  return entry.content?.buffer === block.buffer.buffer;
}

function put(block: Block, entry: Cached, source: Uint8Array, len: number): void {
  block.buffer.set(source.subarray(0, len), block.filled);
  entry.content = block.buffer.subarray(block.filled, block.filled + len);
  block.filled += len;
  block.entries.push(entry);
}
