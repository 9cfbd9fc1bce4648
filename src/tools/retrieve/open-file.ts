import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { defineTool, READ_ONLY } from '../../tool/define.js';
import type { ResolvedPath } from '../../retrieve/resolve.js';
import { envelope, loadRoots, numbered, readText, splitLines, type ToolContext } from './shared.js';

const pathField = z.string().describe('File inside a root; may start with the root name (docs/guide.md).');
const repoField = z.string().optional().describe('Root to look in (default: the root the path names, or every root).');

async function readLines(
  ctx: ToolContext,
  path: string,
  repo: string | undefined,
): Promise<{ file: ResolvedPath; display: string; lines: string[]; truncated: boolean }> {
  const { roots, maxFileBytes } = await loadRoots(ctx);
  const { resolvePath, displayPath } = await import('../../retrieve/resolve.js');
  const file = resolvePath(path, roots, 'file', repo);
  const display = displayPath(file.root, file.real);
  // Checked on what was opened, and read from it: a swap after the check cannot lead outside.
  const { openInsideRoot } = await import('../../retrieve/safe-open.js');
  const { text, truncated, binary } = readText(openInsideRoot(file.root.path, file.real, 'file', display), maxFileBytes);
  if (binary) {
    throw new ToolError('FILE_BINARY', `${display} is a binary file.`, { details: { path: display }, hint: 'Only text files can be opened.' });
  }
  return { file, display, lines: splitLines(text), truncated };
}

export const openFile = defineTool({
  name: 'open_file',
  featured: 3,
  group: 'retrieve',
  command: {
    id: 'retrieve cat',
    args: ['path'],
    examples: ['<%= config.bin %> retrieve cat docs/guide.md', '<%= config.bin %> retrieve cat README.md --repo code --json'],
  },
  title: 'Open a file',
  description:
    'Return a text file of a root as numbered lines ("N<tab>text"). Files over retrieve.max_file_bytes (default 1 MiB) are cut at the last whole line and meta.truncated is true.',
  input: z.strictObject({ path: pathField, repo: repoField }),
  annotations: READ_ONLY,
  async run(input, ctx) {
    const started = performance.now();
    const { file, display, lines, truncated } = await readLines(ctx, input.path, input.repo);
    return envelope({ path: display, total_lines: lines.length, content: numbered(lines, 1) }, file.root.name, started, truncated);
  },
  render: (r) => r.result.content,
});

export const getSnippet = defineTool({
  name: 'get_snippet',
  featured: 5,
  group: 'retrieve',
  command: { id: 'retrieve snippet', args: ['path'], examples: ['<%= config.bin %> retrieve snippet src/index.ts --start 10 --end 30'] },
  title: 'Read lines of a file',
  description: 'Return lines start..end (1-based, inclusive) of a text file as numbered lines; a range past the end is clamped to the file.',
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
    const { file, display, lines, truncated } = await readLines(ctx, input.path, input.repo);
    if (input.start > lines.length) {
      throw new ToolError('RANGE_INVALID', `${display} has ${lines.length} lines; start ${input.start} is past the end.`, {
        details: { start: input.start, end: input.end, total_lines: lines.length },
      });
    }
    const end = Math.min(input.end, lines.length);
    return envelope(
      { path: display, start: input.start, end, total_lines: lines.length, content: numbered(lines.slice(input.start - 1, end), input.start) },
      file.root.name,
      started,
      truncated,
    );
  },
  render: (r) => r.result.content,
});
