import { ToolError } from '../core/errors.js';

/**
 * The query builder: filters, sort, limit and fields turned into AQL whose values all travel as
 * bind variables (`@v0`, `@v1`, ...) and whose collection is `@@collection`; attribute names are
 * checked and back-quoted, so no input is ever spliced into the query text as code. Pure.
 */
export const OPERATORS = ['==', '!=', '<', '<=', '>', '>=', 'IN', 'NOT IN', 'LIKE'] as const;
export type Operator = (typeof OPERATORS)[number];

export interface BuilderInput {
  collection: string;
  filters?: { field: string; op: Operator; value: unknown }[];
  sort?: { field: string; direction?: 'ASC' | 'DESC' }[];
  limit?: number;
  offset?: number;
  fields?: string[];
  count?: boolean;
}

const FIELD = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;

/** `a.b` -> `doc.`a`.`b``: checked, then quoted, so a field name cannot carry AQL. */
export function fieldPath(field: string): string {
  if (!FIELD.test(field)) {
    throw new ToolError('VALIDATION_ERROR', `"${field}" is not an attribute path (letters, digits, _ and -, joined by dots).`, { details: { field } });
  }
  return `doc.${field
    .split('.')
    .map((part) => `\`${part}\``)
    .join('.')}`;
}

export function buildQuery(input: BuilderInput): { query: string; bind_vars: Record<string, unknown> } {
  const bind: Record<string, unknown> = { '@collection': input.collection };
  const lines = ['FOR doc IN @@collection'];
  (input.filters ?? []).forEach((filter, i) => {
    if ((filter.op === 'IN' || filter.op === 'NOT IN') && !Array.isArray(filter.value)) {
      throw new ToolError('VALIDATION_ERROR', `filters[${i}]: ${filter.op} needs an array value.`, { details: { filter } });
    }
    bind[`v${i}`] = filter.value;
    lines.push(`  FILTER ${fieldPath(filter.field)} ${filter.op} @v${i}`);
  });
  if (input.count) {
    lines.push('  COLLECT WITH COUNT INTO total', '  RETURN total');
    return { query: lines.join('\n'), bind_vars: bind };
  }
  if (input.sort?.length) lines.push(`  SORT ${input.sort.map((s) => `${fieldPath(s.field)} ${s.direction ?? 'ASC'}`).join(', ')}`);
  if (input.limit !== undefined) {
    bind.offset = input.offset ?? 0;
    bind.limit = input.limit;
    lines.push('  LIMIT @offset, @limit');
  }
  if (input.fields?.length) {
    const projection = input.fields.map((f) => `\`${f.replace(/\./g, '_')}\`: ${fieldPath(f)}`);
    lines.push(`  RETURN { \`_key\`: doc._key, ${projection.join(', ')} }`);
  } else lines.push('  RETURN doc');
  return { query: lines.join('\n'), bind_vars: bind };
}
