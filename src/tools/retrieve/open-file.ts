import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { defineTool, READ_ONLY } from '../../tool/define.js';
import type { ResolvedPath } from '../../retrieve/resolve.js';
import { closeSync } from 'node:fs';
import type { RenderUi } from '../../tool/context.js';
import { envelope, loadRoots, numbered, refuseHiddenFile, type ToolContext } from './shared.js';

const pathField = z.string().describe('File inside a root; may start with the root name (docs/guide.md).');
const repoField = z.string().optional().describe('Root to look in (default: the root the path names, or every root).');

/** Lines start..end of a text file of a root, whole lines within retrieve.max_file_bytes, and how many lines it has. */
async function readLines(
  ctx: ToolContext,
  path: string,
  repo: string | undefined,
  start: number,
  end: number,
): Promise<{ file: ResolvedPath; display: string; lines: string[]; totalLines: number; truncated: boolean }> {
  const { roots, maxFileBytes } = await loadRoots(ctx);
  const { resolvePath, displayPath } = await import('../../retrieve/resolve.js');
  const file = resolvePath(path, roots, 'file', repo);
  const display = displayPath(file.root, file.real);
  // As named and as it really is (a symlink inside the root may lead to a dotfile).
  await refuseHiddenFile(ctx, file.root, file.rel, display);
  await refuseHiddenFile(ctx, file.root, display.slice(file.root.name.length + 1), display);
  // Checked on what was opened, and read from it: a swap after the check cannot lead outside.
  const [{ openInsideRoot }, { readLineRange }] = await Promise.all([import('../../retrieve/safe-open.js'), import('../../retrieve/patterns/line-range.js')]);
  const fd = openInsideRoot(file.root.path, file.real, 'file', display, file.root.withheld);
  let range;
  try {
    range = readLineRange(fd, start, end, maxFileBytes);
  } finally {
    closeSync(fd);
  }
  if (range.binary) {
    throw new ToolError('FILE_BINARY', `${display} is a binary file.`, { details: { path: display }, hint: 'Only text files can be opened.' });
  }
  return { file, display, lines: range.lines, totalLines: range.totalLines, truncated: range.truncated };
}

/** The terminal's word on output cut at retrieve.max_file_bytes: how much was shown, and how to read on. */
function cutNotice(ui: RenderUi, path: string, first: number, shown: number, total: number): void {
  const last = first + shown - 1;
  ui.note(
    `showed lines ${first}-${last} of ${total} (retrieve.max_file_bytes); read on with: mcpkit retrieve snippet ${path} --start ${last + 1} --end ${Math.min(total, last + shown)}`,
  );
}

export const openFile = defineTool({
  name: 'open_file',
  warm: true,
  featured: 3,
  group: 'retrieve',
  command: {
    id: 'retrieve cat',
    args: ['path'],
    examples: ['<%= config.bin %> retrieve cat docs/guide.md', '<%= config.bin %> retrieve cat README.md --repo code --json'],
  },
  title: 'Open a file',
  description:
    'Return a text file of a root as numbered lines ("N<tab>text"). Output over retrieve.max_file_bytes (default 1 MiB) is cut at the last whole line, meta.truncated is true, and total_lines still counts the whole file (read on with get_snippet).',
  input: z.strictObject({ path: pathField, repo: repoField }),
  annotations: READ_ONLY,
  async run(input, ctx) {
    const started = performance.now();
    const { file, display, lines, totalLines, truncated } = await readLines(ctx, input.path, input.repo, 1, Infinity);
    return envelope({ path: display, total_lines: totalLines, shown_lines: lines.length, content: numbered(lines, 1) }, file.root.name, started, truncated);
  },
  render: (r, ui) => {
    if (r.meta.truncated) cutNotice(ui, r.result.path, 1, r.result.shown_lines, r.result.total_lines);
    return r.result.content;
  },
});

export const getSnippet = defineTool({
  name: 'get_snippet',
  warm: true,
  featured: 5,
  group: 'retrieve',
  command: { id: 'retrieve snippet', args: ['path'], examples: ['<%= config.bin %> retrieve snippet src/index.ts --start 10 --end 30'] },
  title: 'Read lines of a file',
  description:
    'Return lines start..end (1-based, inclusive) of a text file as numbered lines; a range past the end is clamped to the file. Works on a file of any size; output over retrieve.max_file_bytes is cut at the last whole line (meta.truncated).',
  input: z.strictObject({
    path: pathField,
    repo: repoField,
    start: z.int().min(1).describe('First line, from 1.'),
    end: z.int().min(1).describe('Last line (inclusive).'),
  }),
  annotations: READ_ONLY,
  async run(input, ctx) {
    const started = performance.now();
    if (input.start > input.end) {
      throw new ToolError('RANGE_INVALID', `start (${input.start}) is after end (${input.end}).`, { details: { start: input.start, end: input.end } });
    }
    const { file, display, lines, totalLines, truncated } = await readLines(ctx, input.path, input.repo, input.start, input.end);
    if (input.start > totalLines) {
      throw new ToolError('RANGE_INVALID', `${display} has ${totalLines} lines; start ${input.start} is past the end.`, {
        details: { start: input.start, end: input.end, total_lines: totalLines },
      });
    }
    // The range as returned: to the file's end, or to the last whole line within max_file_bytes.
    const end = input.start + lines.length - 1;
    return envelope(
      { path: display, start: input.start, end, total_lines: totalLines, content: numbered(lines, input.start) },
      file.root.name,
      started,
      truncated,
    );
  },
  render: (r, ui) => {
    if (r.meta.truncated) cutNotice(ui, r.result.path, r.result.start, r.result.end - r.result.start + 1, r.result.total_lines);
    return r.result.content;
  },
});
