import type { RenderUi } from '../../tool/context.js';

const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** Rows as a table when they are flat objects (every value a scalar), JSON otherwise. */
export function renderRows(rows: readonly unknown[], ui: RenderUi): string {
  if (rows.length === 0) return ui.color.dim('(no rows)');
  const flat = rows.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r) && Object.values(r as object).every(scalar));
  if (!flat) return JSON.stringify(rows, null, 2);
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r as object)))];
  return ui.table(rows as Record<string, unknown>[], columns);
}
