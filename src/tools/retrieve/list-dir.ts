import * as z from 'zod';
import { closeSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { defineTool, READ_ONLY } from '../../tool/define.js';
import { envelope, loadRoots } from './shared.js';

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
  }),
  annotations: READ_ONLY,
  async run(input, ctx) {
    const started = performance.now();
    const { roots } = await loadRoots(ctx);
    const { resolvePath, requireRepo, displayPath } = await import('../../retrieve/resolve.js');
    if (input.path === undefined || input.path.trim() === '') {
      requireRepo(roots, input.repo);
      if (input.repo === undefined) {
        const entries: Entry[] = roots.map((r) => ({ name: r.name, path: r.name, type: 'root' }));
        return envelope({ path: '', entries }, null, started);
      }
    }
    const repoRoot = roots.find((r) => r.name === input.repo);
    const target = input.path?.trim() ? resolvePath(input.path, roots, 'dir', input.repo) : { root: repoRoot!, rel: '', real: repoRoot!.path };
    const [{ IgnoreRules }, { openInsideRoot, throughDescriptor }] = await Promise.all([
      import('../../retrieve/ignore-rules.js'),
      import('../../retrieve/safe-open.js'),
    ]);
    const rules = new IgnoreRules(target.root.path);
    const entries: Entry[] = [];
    // The folder is opened and verified first, then listed through its descriptor: swapping it for
    // a symlink after the check cannot list another folder.
    const fd = openInsideRoot(target.root.path, target.real, 'dir', displayPath(target.root, target.real));
    const folder = throughDescriptor(fd, target.real);
    try {
      for (const dirent of readdirSync(folder, { withFileTypes: true })) {
        const name = dirent.name;
        if (name === '.git') continue;
        if (name.startsWith('.') && !input.hidden) continue;
        const rel = target.rel ? `${target.rel}/${name}` : name;
        const type: Entry['type'] = dirent.isSymbolicLink() ? 'symlink' : dirent.isDirectory() ? 'dir' : 'file';
        const isDir = type === 'dir' || (type === 'symlink' && safeIsDir(join(folder, name)));
        if (!input.ignored && rules.ignored(rel, isDir)) continue;
        const entry: Entry = { name, path: `${target.root.name}/${rel}`, type };
        if (type === 'file') entry.size = lstatSync(join(folder, name), { throwIfNoEntry: false })?.size ?? 0;
        entries.push(entry);
      }
    } finally {
      closeSync(fd);
    }
    // Byte-wise, so the order is the same on every machine and locale.
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return envelope({ path: displayPath(target.root, target.real), entries }, target.root.name, started);
  },
  render: (r, ui) =>
    r.result.entries.length === 0
      ? ui.color.dim('(empty)')
      : r.result.entries
          .map((e) =>
            e.type === 'dir' || e.type === 'root'
              ? ui.color.bold(`${e.name}/`)
              : e.type === 'symlink'
                ? `${e.name}@`
                : `${e.name}${ui.color.dim(`  ${e.size}`)}`,
          )
          .join('\n'),
});

function safeIsDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
