import * as z from 'zod';
import { printable } from '../../core/printable.js';
import { closeSync, lstatSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { defineTool, READ_ONLY } from '../../tool/define.js';
import { envelope, loadRoots, noteLeftOut, refuseHiddenFile, refuseHiddenWalk } from './shared.js';

interface Entry {
  name: string;
  path: string;
  type: 'file' | 'dir' | 'symlink' | 'root';
  size?: number;
}

export const listDir = defineTool({
  name: 'list_dir',
  warm: true,
  featured: 6,
  group: 'retrieve',
  command: {
    id: 'retrieve ls',
    args: ['path'],
    examples: ['<%= config.bin %> retrieve ls', '<%= config.bin %> retrieve ls docs/guides', '<%= config.bin %> retrieve ls src --repo code --hidden --json'],
  },
  title: 'List a folder',
  description:
    'List a folder of a root: entries with their type, and size for files, sorted by name. Without a path, list the roots.\nDotfiles, .git and what .gitignore ignores are left out unless --hidden (dotfiles) and --ignored (ignored files).',
  input: z.strictObject({
    path: z.string().optional().describe('Folder inside a root; may start with the root name (docs/guides).'),
    repo: z.string().optional().describe('Root to look in (default: the root the path names, or every root).'),
    hidden: z.boolean().default(false).describe('Include dotfiles and dot-folders (never .git).'),
    ignored: z.boolean().default(false).describe('Include what .gitignore ignores.'),
    limit: z
      .int()
      .min(1, 'must be from 1 to 10000')
      .max(10000, 'must be from 1 to 10000')
      .default(1000)
      .describe('Most entries to return (1-10000), the first by name; meta.truncated is then true, and total_entries counts them all.'),
  }),
  annotations: READ_ONLY,
  fieldCodes: { limit: 'LIMIT_INVALID' },
  async run(input, ctx) {
    const started = performance.now();
    const { roots } = await loadRoots(ctx);
    const { resolvePath, requireRepo, displayPath } = await import('../../retrieve/resolve.js');
    if (input.path === undefined || input.path.trim() === '') {
      requireRepo(roots, input.repo);
      if (input.repo === undefined) {
        const entries: Entry[] = roots.map((r) => ({ name: r.name, path: r.name, type: 'root' }));
        return envelope({ path: '', entries, total_entries: entries.length, skipped: { name_not_utf8: 0 } }, null, started);
      }
    }
    const repoRoot = roots.find((r) => r.name === input.repo);
    const target = input.path?.trim() ? resolvePath(input.path, roots, 'dir', input.repo) : { root: repoRoot!, rel: '', real: repoRoot!.path };
    refuseHiddenWalk(ctx, [target.root], { hidden: input.hidden, ignored: input.ignored });
    const shown = displayPath(target.root, target.real);
    // A folder a listing would leave out is not listed over MCP either (its names say what is there).
    await refuseHiddenFile(ctx, target.root, target.rel, shown);
    await refuseHiddenFile(ctx, target.root, shown.slice(target.root.name.length + 1), shown);
    const [{ IgnoreRules }, { accessDenied, openInsideRoot, throughDescriptor }, { mayBeUndecodable, undecodableNames }, { ownName }] = await Promise.all([
      import('../../retrieve/patterns/ignore-rules.js'),
      import('../../retrieve/safe-open.js'),
      import('../../retrieve/names.js'),
      import('../../config/files/own-files.js'),
    ]);
    const rules = new IgnoreRules(target.root.path);
    const kept: { name: string; rel: string; type: Entry['type'] }[] = [];
    let undecodable = 0;
    // The folder is opened and verified first, then listed through its descriptor: swapping it for
    // a symlink after the check cannot list another folder.
    const display = displayPath(target.root, target.real);
    const fd = openInsideRoot(target.root.path, target.real, 'dir', display, target.root.withheld);
    const folder = throughDescriptor(fd, target.real);
    const entries: Entry[] = [];
    try {
      let dirents: Dirent[];
      try {
        dirents = readdirSync(folder, { withFileTypes: true });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EACCES' || code === 'EPERM') throw accessDenied(display);
        throw error;
      }
      const bad = dirents.some((d) => mayBeUndecodable(d.name)) ? undecodableNames(folder) : undefined;
      const withheld = target.root.withheld;
      const ownNames = withheld?.byFolder.get(target.real);
      for (const dirent of dirents) {
        const name = dirent.name;
        if (name === '.git') continue;
        // mcpkit's own files are not there for an agent, not even by name.
        if (withheld && (dirent.isDirectory() ? withheld.folders.has(join(target.real, name)) : ownNames && ownName(name, ownNames))) continue;
        if (name.startsWith('.') && !input.hidden) continue;
        if (bad?.has(name)) {
          undecodable++; // its decoded name opens nothing
          continue;
        }
        const rel = target.rel ? `${target.rel}/${name}` : name;
        const type: Entry['type'] = dirent.isSymbolicLink() ? 'symlink' : dirent.isDirectory() ? 'dir' : 'file';
        const isDir = type === 'dir' || (type === 'symlink' && safeIsDir(join(folder, name)));
        if (!input.ignored && rules.ignored(rel, isDir)) continue;
        kept.push({ name, rel, type });
      }
      // Byte-wise, so the order is the same on every machine and locale; only what is returned is stat-ed.
      kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const { name, rel, type } of kept.slice(0, input.limit)) {
        const entry: Entry = { name, path: `${target.root.name}/${rel}`, type };
        if (type === 'file') entry.size = lstatSync(join(folder, name), { throwIfNoEntry: false })?.size ?? 0;
        entries.push(entry);
      }
    } finally {
      closeSync(fd);
    }
    return envelope(
      { path: display, entries, total_entries: kept.length, skipped: { name_not_utf8: undecodable } },
      target.root.name,
      started,
      kept.length > entries.length,
    );
  },
  render: (r, ui) => {
    noteLeftOut({ path_too_long: 0, ...r.result.skipped }, ui);
    if (r.meta.truncated) ui.note(`Showing the first ${r.result.entries.length} of ${r.result.total_entries} entries; raise --limit for more.`);
    return r.result.entries.length === 0
      ? ui.color.dim('(empty)')
      : r.result.entries
          .map((e) =>
            e.type === 'dir' || e.type === 'root'
              ? ui.color.bold(`${printable(e.name)}/`)
              : e.type === 'symlink'
                ? `${printable(e.name)}@`
                : `${printable(e.name)}${ui.color.dim(`  ${e.size}`)}`,
          )
          .join('\n');
  },
});

function safeIsDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
