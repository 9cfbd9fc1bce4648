import { watch, type FSWatcher } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { reconcileWatches } from '../core/watches.js';

export interface ConfigWatcherOptions {
  /** The config file as located (it may be a symlink, and it may not exist yet). */
  path: string;
  /** Other files of the config's folder whose changes count (the tool pins). */
  companions?: readonly string[];
  /** Called once a burst of changes has been quiet for `debounceMs`. */
  changed: () => void;
  debounceMs?: number;
  /** Why watching does not work (the kernel's watch limit, permissions); reloads still come on SIGHUP. */
  failed?: (reason: string) => void;
  /** The config's folder does not exist, so it is not watched. */
  missing?: (folder: string) => void;
}

export const CONFIG_DEBOUNCE_MS = 100;

/**
 * Watches the folder of the config file, not the file: an atomic edit renames a new file over the
 * old one (a watch on the file would stay on the old inode), and an editor may delete and write
 * anew. A symlinked config (a dotfiles repo, a Kubernetes ConfigMap's `..data` link) is followed:
 * the folder of its target is watched too, and re-resolved after every change. Node's `fs.watch`
 * (inotify) is used rather than a watcher library: two non-recursive folder watches are all it
 * takes, and the reload compares the file's text, so a spurious event costs one read.
 */
export class ConfigWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private timer?: NodeJS.Timeout;
  private closed = false;
  private readonly names = new Set<string>();

  constructor(private readonly options: ConfigWatcherOptions) {}

  async start(): Promise<void> {
    await this.watchFolders();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private async watchFolders(): Promise<void> {
    const { path } = this.options;
    const target = await realpath(path).catch(() => path);
    const wanted = new Map([
      [dirname(path), basename(path)],
      [dirname(target), basename(target)],
    ]);
    this.names.clear();
    for (const name of wanted.values()) this.names.add(name);
    for (const companion of this.options.companions ?? []) this.names.add(basename(companion));
    if (this.closed) return;
    for (const folder of reconcileWatches(this.watchers, wanted.keys())) {
      try {
        const w = watch(folder, { persistent: false }, (_type, name) => this.onEvent(name === null ? null : String(name)));
        w.on('error', (error) => this.options.failed?.(`watching ${folder} failed: ${error.message}`));
        this.watchers.set(folder, w);
      } catch (error) {
        // No folder yet (a user config never written): nothing to watch, and nothing worth a warning.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') this.options.missing?.(folder);
        else this.options.failed?.(`cannot watch ${folder}: ${(error as Error).message}`);
      }
    }
  }

  private onEvent(name: string | null): void {
    // Other files of the folder are not the config; `..data` and the like are the links a ConfigMap swaps.
    if (name !== null && !this.names.has(name) && !name.startsWith('..')) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.closed) return;
      void this.watchFolders().finally(() => this.options.changed());
    }, this.options.debounceMs ?? CONFIG_DEBOUNCE_MS);
    this.timer.unref();
  }
}
