import { watch, type FSWatcher } from 'node:fs';
import { reconcileWatches } from '../core/watches.js';

/**
 * One inotify watch (Node's `fs.watch`, not recursive) per folder a walk listed, so a change
 * anywhere in what a search covers is heard of, and nothing in what .gitignore leaves out costs a
 * watch. Node's own watcher is used rather than a watcher library: per-folder watches are what
 * is needed here (the walk knows the folders), Node's recursive mode would also watch ignored
 * trees such as node_modules, and a native library (@parcel/watcher) would add a compiled
 * dependency for no gain. Watches are set up in slices between requests (a large tree has
 * thousands of folders); until then, and for good after any error (the kernel's watch limit
 * reached), `ready` is false and the index stats files instead.
 */
export class FolderWatcher {
  private readonly handles = new Map<string, FSWatcher>();
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  ready = false;
  /** Counts the times every wanted folder came to be watched (what was not watched before may have changed unheard). */
  generation = 0;
  /** Why watching stopped for good. */
  failed: string | undefined;

  constructor(private readonly onEvent: (folder: string, type: string, name: string | null) => void) {}

  /** Watches exactly these folders: new ones are added (in the background), gone ones closed. */
  watch(folders: readonly string[]): void {
    if (this.failed) return;
    this.pending = reconcileWatches(this.handles, folders);
    if (this.pending.length === 0) {
      if (!this.ready) this.generation++;
      this.ready = true;
      return;
    }
    this.ready = false;
    this.timer ??= setTimeout(() => this.work(), 0).unref();
  }

  stop(reason: string): void {
    this.failed ??= reason;
    this.ready = false;
    this.pending = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const handle of this.handles.values()) handle.close();
    this.handles.clear();
  }

  private work(): void {
    this.timer = undefined;
    const until = performance.now() + SLICE_MS;
    while (this.pending.length > 0 && performance.now() < until) {
      const folder = this.pending.pop()!;
      try {
        const handle = watch(folder, { persistent: false }, (type, name) => this.onEvent(folder, type, name === null ? null : String(name)));
        handle.on('error', (error) => this.stop(`watching ${folder} failed: ${error.message}`));
        this.handles.set(folder, handle);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // A folder gone since the walk is a change like any other; anything else ends watching.
        if (code === 'ENOENT' || code === 'ENOTDIR') {
          this.onEvent(folder, 'rename', null);
          continue;
        }
        this.stop(
          code === 'ENOSPC'
            ? "the kernel's inotify watch limit is reached (fs.inotify.max_user_watches)"
            : `watching ${folder} failed: ${(error as Error).message}`,
        );
        return;
      }
    }
    if (this.failed) return;
    if (this.pending.length > 0) {
      this.timer = setTimeout(() => this.work(), 0).unref();
      return;
    }
    this.generation++;
    this.ready = true;
  }
}

const SLICE_MS = 8;
