import { printable } from '../../core/printable.js';
import { GrepLines, type GrepLine } from '../../retrieve/grep-lines.js';
import type { FileCount, SearchMatch } from '../../retrieve/search.js';
import type { RenderUi } from '../../tool/context.js';

/** How the search tool prints in a terminal, as rg does (search.ts runs it). */
interface SearchPrinted {
  result: { matches?: SearchMatch[]; files?: { path: string }[]; counts?: FileCount[]; files_searched?: number; skipped?: { binary?: number } };
  meta: { truncated: boolean };
}

/** No file searched and none skipped as binary: what rg calls "No files were searched". */
export function nothingSearched(result: { files_searched?: number; skipped?: { binary?: number } }): boolean {
  return result.files_searched === 0 && (result.skipped?.binary ?? 0) === 0;
}

/** The whole answer; with --limit 0 the matches were printed as they were found (renderSearchItem), all but the last after-context. */
export function renderSearch(r: SearchPrinted, ui: RenderUi, unlimited: boolean): string {
  const { result } = r;
  const what = result.files ? 'files' : result.counts ? 'files' : 'matches';
  const shown = result.files
    ? result.files.map((f) => ui.color.magenta(printable(f.path)))
    : result.counts
      ? result.counts.map((c) => `${ui.color.magenta(printable(c.path))}:${c.count}`)
      : unlimited
        ? grepOf(ui)
            .finish()
            .map((line) => grepLine(line, ui))
        : printGrep(result.matches ?? [], ui);
  const count = (result.files ?? result.counts ?? result.matches ?? []).length;
  return [...shown, ...(r.meta.truncated ? [ui.color.yellow(`(stopped at ${count} ${what}; raise --limit for more, or --limit 0 for all)`)] : [])].join('\n');
}

/** One match as it is found (--limit 0). */
export function renderSearchItem(m: SearchMatch, ui: RenderUi): string {
  return grepOf(ui)
    .add(m)
    .map((line) => grepLine(line, ui))
    .join('\n');
}

/** The lines of one terminal's printing, kept from match to match (renderSearchItem) until renderSearch ends it. */
const printers = new WeakMap<RenderUi, GrepLines>();
function grepOf(ui: RenderUi): GrepLines {
  let printer = printers.get(ui);
  if (!printer) printers.set(ui, (printer = new GrepLines()));
  return printer;
}

function printGrep(matches: readonly SearchMatch[], ui: RenderUi): string[] {
  const grep = new GrepLines();
  return [...matches.flatMap((m) => grep.add(m)), ...grep.finish()].map((line) => grepLine(line, ui));
}

/** A line as grep prints it: path:line:text for a match, path-line-text for context, -- between groups. */
function grepLine(line: GrepLine, ui: RenderUi): string {
  if (line.kind === 'separator') return ui.color.dim('--');
  if (line.kind === 'context') return ui.color.dim(`${printable(line.path)}-${line.line}-${line.text}`);
  return `${ui.color.magenta(printable(line.path))}:${ui.color.green(String(line.line))}:${line.text}`;
}
