import type { SearchMatch } from './file-search.js';

/** One line of grep's output: a match (`path:line:text`), a context line (`path-line-text`), or `--`. */
export type GrepLine = { kind: 'match' | 'context'; path: string; line: number; text: string } | { kind: 'separator' };

/** A line to print: with rg -o, one output line per matched part (`texts`), else the line itself. */
type Numbered = { kind: 'match' | 'context'; path: string; line: number; texts: readonly string[] };

/**
 * Matches in walk order as rg prints them with context: a line shared by two matches' context is
 * printed once, a context line that is itself a match is printed as the match, and groups that do
 * not touch (another file, or a gap) are parted by `--`. A match's after-context waits for the
 * next match (which may cover it) or finish(), so matches can be printed as they are found. With
 * rg -o, a line that holds matched parts prints each part on its own line (a context line too, as
 * rg does), and one that holds none (a line -v chose) prints whole; rg -m's after-context lines
 * that match print as matches. Pure.
 */
export class GrepLines {
  private last: { path: string; line: number } | undefined;
  private pending: Numbered[] = [];

  add(match: SearchMatch): GrepLine[] {
    const out: GrepLine[] = [];
    for (const p of this.pending) if (p.path !== match.path || p.line < match.line) this.print(out, p);
    this.pending = [];
    const withContext = match.before !== undefined || match.after !== undefined;
    const before = (match.before ?? []).map((text, i, all) => contextLine(match, match.line - all.length + i, text));
    const group = [...before.filter((b) => !this.shown(b)), matchLine(match)];
    if (withContext && this.last && (this.last.path !== match.path || group[0]!.line > this.last.line + 1)) out.push({ kind: 'separator' });
    for (const b of group.slice(0, -1)) this.print(out, b);
    if (!this.shown(match)) this.print(out, group[group.length - 1]!);
    this.pending = (match.after ?? []).map((text, i) => contextLine(match, match.line + 1 + i, text));
    return out;
  }

  /** The after-context still waiting. */
  finish(): GrepLine[] {
    const out: GrepLine[] = [];
    for (const p of this.pending) this.print(out, p);
    this.pending = [];
    return out;
  }

  private shown(line: { path: string; line: number }): boolean {
    return this.last !== undefined && this.last.path === line.path && line.line <= this.last.line;
  }

  private print(out: GrepLine[], line: Numbered): void {
    for (const text of line.texts) out.push({ kind: line.kind, path: line.path, line: line.line, text });
    this.last = { path: line.path, line: line.line };
  }
}

function matchLine(match: SearchMatch): Numbered {
  const texts = match.matched?.length ? match.matched : [match.text];
  return { kind: 'match', path: match.path, line: match.line, texts };
}

function contextLine(match: SearchMatch, line: number, text: string): Numbered {
  const kind = match.after_matches?.includes(line) ? 'match' : 'context';
  return { kind, path: match.path, line, texts: match.context_matched?.[String(line)] ?? [text] };
}
