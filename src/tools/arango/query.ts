import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { OPERATORS } from '../../arango/query-builder.js';
import { renderRows } from './render.js';
import { ARANGO_DESTRUCTIVE, defineArangoTool, type ArangoCall } from './shared.js';
import { READ_ONLY } from '../../tool/define.js';

const bindVars = z.record(z.string(), z.unknown()).optional().describe('Values for the @name (and @@collection) parameters of the query.');

/** Runs AQL, reading at most maxRows rows from the cursor (then closing it). */
export async function runAql(
  call: ArangoCall,
  query: string,
  bind: Record<string, unknown> | undefined,
  options: { batchSize: number; maxRows: number; profile?: boolean },
) {
  if (call.settings.readOnly) {
    const { writingKeywords } = await import('../../arango/aql-safety.js');
    const words = writingKeywords(query);
    if (words.length) {
      throw new ToolError('READ_ONLY', `The query writes (${words.join(', ')}), and mcpkit is in read-only mode.`, {
        details: { keywords: words },
        hint: 'Only reading AQL runs in read-only mode (arango.read_only, ARANGO_READ_ONLY or serve --read-only).',
      });
    }
  }
  const cursor = await call.timed(
    call.db.query(query, bind ?? {}, { batchSize: Math.min(options.batchSize, options.maxRows), count: true, ...(options.profile ? { profile: 2 } : {}) }),
  );
  const rows: unknown[] = [];
  while (rows.length < options.maxRows && (cursor.hasNext || rows.length === 0)) {
    const batch = await call.timed(cursor.batches.next());
    if (batch === undefined) break;
    rows.push(...batch);
  }
  const truncated = rows.length > options.maxRows || cursor.hasNext;
  if (cursor.hasNext) await cursor.kill().catch(() => undefined);
  return {
    rows: rows.slice(0, options.maxRows),
    count: cursor.count ?? rows.length,
    truncated,
    stats: cursor.extra?.stats ?? {},
    profile: (cursor.extra as { profile?: unknown } | undefined)?.profile,
  };
}

export const arangoQuery = defineArangoTool({
  name: 'arango_query',
  featured: 9,
  // Listed first only where an ArangoDB is named: otherwise its every call fails to connect.
  featuredIf: (config, env) => config.arango?.url !== undefined || env.ARANGO_URL !== undefined,
  command: {
    id: 'arango query',
    args: ['query'],
    examples: [
      "<%= config.bin %> arango query 'RETURN 1'",
      "<%= config.bin %> arango query 'FOR u IN users FILTER u.age >= @min RETURN u' --bind-vars '{\"min\": 18}'",
      "<%= config.bin %> arango query 'FOR d IN logs RETURN d' --max-rows 50 --json",
    ],
  },
  title: 'Run an AQL query',
  description:
    "Run an AQL query with bind variables and return its rows (at most max_rows; truncated says whether more were left) with the server's statistics.\nUse bind variables (@name, @@collection) for values, never string concatenation. In read-only mode, queries that write are refused.",
  input: z.strictObject({
    query: z.string().min(1).describe('The AQL query.'),
    bind_vars: bindVars,
    batch_size: z.int().min(1).max(10000).default(1000).describe('Rows per round trip to the server.'),
    max_rows: z.int().min(1).max(100000).default(1000).describe('Most rows to return; the rest are left on the server.'),
  }),
  annotations: ARANGO_DESTRUCTIVE,
  writes: false,
  // Refuses AQL that writes in read-only mode (runAql), so read-only mode keeps it, as a reader.
  enforcesReadOnly: true,
  async run(input, call) {
    const out = await runAql(call, input.query, input.bind_vars, { batchSize: input.batch_size, maxRows: input.max_rows });
    return { rows: out.rows, count: out.count, truncated: out.truncated, stats: out.stats };
  },
  render: (r, ui) =>
    [renderRows(r.rows, ui), ...(r.truncated ? [ui.color.yellow(`(first ${r.rows.length} of ${r.count} rows; raise --max-rows for more)`)] : [])].join('\n'),
});

export const arangoQueryProfile = defineArangoTool({
  name: 'arango_query_profile',
  command: { id: 'arango profile', args: ['query'], examples: ["<%= config.bin %> arango profile 'FOR u IN users FILTER u.age > 30 RETURN u' --json"] },
  title: 'Run an AQL query and profile it',
  description: 'Run an AQL query with profiling: the rows (up to max_rows), execution statistics and the time spent per phase, to find slow parts.',
  input: z.strictObject({
    query: z.string().min(1).describe('The AQL query.'),
    bind_vars: bindVars,
    max_rows: z.int().min(1).max(100000).default(100).describe('Most rows to return.'),
  }),
  annotations: ARANGO_DESTRUCTIVE,
  writes: false,
  // Refuses AQL that writes in read-only mode (runAql), so read-only mode keeps it, as a reader.
  enforcesReadOnly: true,
  async run(input, call) {
    const out = await runAql(call, input.query, input.bind_vars, { batchSize: 1000, maxRows: input.max_rows, profile: true });
    return { rows: out.rows, truncated: out.truncated, stats: out.stats, profile: out.profile ?? null };
  },
});

export const arangoExplainQuery = defineArangoTool({
  name: 'arango_explain_query',
  command: {
    id: 'arango explain',
    args: ['query'],
    examples: ['<%= config.bin %> arango explain \'FOR u IN users FILTER u.email == @e RETURN u\' --bind-vars \'{"e":"a@b.c"}\''],
  },
  title: 'Explain an AQL query, with index suggestions',
  description:
    'Show the execution plan ArangoDB chose (nodes, estimated cost, optimizer rules, indexes used) without running the query, and suggest persistent indexes for filtered attributes read by a full collection scan.',
  input: z.strictObject({
    query: z.string().min(1).describe('The AQL query.'),
    bind_vars: bindVars,
    suggest_indexes: z.boolean().default(true).describe('Suggest indexes for full scans with filters.'),
  }),
  annotations: READ_ONLY,
  writes: false,
  async run(input, call) {
    const explained = (await call.timed(call.db.explain({ query: input.query, bindVars: input.bind_vars ?? {} }))) as unknown as {
      plan: {
        nodes: { type: string; collection?: string; indexes?: { name?: string; type: string; fields: string[] }[] }[];
        rules: string[];
        estimatedCost: number;
        collections: unknown[];
      };
      warnings: unknown[];
    };
    const plan = explained.plan;
    const { suggestIndexes } = await import('../../arango/explain.js');
    const scanned = plan.nodes.filter((n) => n.type === 'EnumerateCollectionNode' && n.collection).map((n) => n.collection!);
    return {
      estimated_cost: plan.estimatedCost,
      rules: plan.rules,
      nodes: plan.nodes.map((n) => ({
        type: n.type,
        ...(n.collection ? { collection: n.collection } : {}),
        ...(n.indexes ? { indexes: n.indexes.map((i) => ({ name: i.name, type: i.type, fields: i.fields })) } : {}),
      })),
      collections: plan.collections,
      warnings: explained.warnings,
      index_suggestions: input.suggest_indexes ? suggestIndexes(input.query, input.bind_vars ?? {}, scanned) : [],
    };
  },
});

export const arangoQueryBuilder = defineArangoTool({
  name: 'arango_query_builder',
  command: {
    id: 'arango build-query',
    args: ['collection'],
    examples: [
      '<%= config.bin %> arango build-query users --filters \'[{"field":"age","op":">=","value":18}]\' --sort \'[{"field":"name"}]\' --limit 10',
      '<%= config.bin %> arango build-query users --fields name --fields email --no-execute --json',
    ],
  },
  title: 'Build (and run) a query from filters',
  description:
    'Build AQL from a collection, filters, sort, limit and fields, with every value passed as a bind variable (nothing is spliced into the query text), then run it unless execute is false.',
  input: z.strictObject({
    collection: z.string().min(1).describe('Collection to read.'),
    filters: z
      .array(z.strictObject({ field: z.string().min(1), op: z.enum(OPERATORS), value: z.unknown() }))
      .optional()
      .describe('Conditions, all of which must hold: {field, op, value}; op is one of ==, !=, <, <=, >, >=, IN, NOT IN, LIKE.'),
    sort: z
      .array(z.strictObject({ field: z.string().min(1), direction: z.enum(['ASC', 'DESC']).default('ASC') }))
      .optional()
      .describe('Sort keys in order: {field, direction}.'),
    limit: z.int().min(1).max(100000).optional().describe('Most documents.'),
    offset: z.int().min(0).optional().describe('Documents to skip (with limit).'),
    fields: z.array(z.string().min(1)).optional().describe('Attributes to return (default: whole documents).'),
    count: z.boolean().default(false).describe('Return only how many documents match.'),
    execute: z.boolean().default(true).describe('Run the query; false returns only the query and its bind variables.'),
  }),
  annotations: READ_ONLY,
  writes: false,
  async offline(input) {
    if (input.execute) return undefined;
    const { buildQuery } = await import('../../arango/query-builder.js');
    return { ...buildQuery(input), rows: null as unknown[] | null, truncated: false };
  },
  async run(input, call) {
    const { buildQuery } = await import('../../arango/query-builder.js');
    const built = buildQuery(input);
    const out = await runAql(call, built.query, built.bind_vars, { batchSize: 1000, maxRows: input.limit ?? 1000 });
    return { ...built, rows: out.rows, truncated: out.truncated };
  },
  render: (r, ui) => (r.rows === null ? `${r.query}\n${ui.color.dim(JSON.stringify(r.bind_vars))}` : renderRows(r.rows, ui)),
});
