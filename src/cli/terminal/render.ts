import { printable } from '../../core/printable.js';
import type { ChalkInstance } from 'chalk';
import type { RenderUi } from '../../tool/context.js';
import { commandScope } from './command-scope.js';

const MAX_CELL = 80;

/** One line for a value; in a table cell (`cut`) at most MAX_CELL characters, so columns stay readable. */
function cellText(value: unknown, cut = true): string {
  if (value === undefined || value === null) return '';
  // A cell is one line of the terminal: no control character gets through (hand-written commands' tables too).
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const oneLine = printable(text.replace(/\s*\n\s*/g, ' '));
  return cut && oneLine.length > MAX_CELL ? `${oneLine.slice(0, MAX_CELL - 1)}…` : oneLine;
}

/** A plain aligned table; the header is bold when colour is on. Pure: returns the text. */
export function renderTable(color: ChalkInstance, rows: readonly Record<string, unknown>[], columns?: readonly string[]): string {
  const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (rows.length === 0) return color.dim('(none)');
  const cells = rows.map((row) => cols.map((c) => cellText(row[c])));
  const widths = cols.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
  const header = color.bold(line(cols.map((c) => c.toUpperCase())));
  return [header, ...cells.map(line)].join('\n');
}

function isRecordArray(value: unknown): value is Record<string, unknown>[] {
  return Array.isArray(value) && value.length > 0 && value.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
}

/** What the CLI prints for a tool without its own `render`: tables for lists, `key: value` lines for objects. */
export function renderGeneric(result: unknown, ui: RenderUi): string {
  if (result === undefined || result === null) return '';
  if (typeof result !== 'object') return String(result);
  if (isRecordArray(result)) return ui.table(result);
  if (Array.isArray(result)) return result.map((value) => cellText(value, false)).join('\n');
  const entries = Object.entries(result as Record<string, unknown>);
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  const parts: string[] = [];
  for (const [key, value] of entries) {
    if (isRecordArray(value)) parts.push(`${ui.color.bold(key)}:\n${ui.table(value)}`);
    // One entry's fields are shown whole: there is no column to keep aligned.
    else parts.push(`${ui.color.bold(key.padEnd(width))}  ${cellText(value, false)}`);
  }
  return parts.join('\n');
}

export function createRenderUi(color: ChalkInstance, note: (text: string) => void = (text) => commandScope().io.err(`${text}\n`)): RenderUi {
  return { color, table: (rows, columns) => renderTable(color, rows, columns), note };
}
