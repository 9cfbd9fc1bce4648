import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import type { BackupManifest } from '../../arango/backup-layout.js';
import { ARANGO_DESTRUCTIVE, backupFolder, defineArangoTool, queryAll, type ArangoCall } from './shared.js';
import { READ_ONLY } from '../../tool/define.js';
import { graphInfo, graphName, vertexCollections, type GraphInfo } from './graphs.js';

/** A graph's upkeep: statistics, an integrity check of its edges, and backups and restores of named graphs. */

export const arangoGraphStatistics = defineArangoTool({
  name: 'arango_graph_statistics',
  command: { id: 'arango graph-stats', args: ['graph'], examples: ['<%= config.bin %> arango graph-stats social'] },
  title: 'Graph statistics',
  description: "Count a graph's vertices and edges per collection, its average out-degree and the vertex with the most outgoing edges.",
  input: z.strictObject({ graph: graphName }),
  annotations: READ_ONLY,
  writes: false,
  async run(input, call) {
    const graph = await graphInfo(call, input.graph);
    const vertices = await Promise.all(
      vertexCollections(graph).map(async (name) => ({ name, count: (await call.timed(call.db.collection(name).count())).count })),
    );
    const edges = await Promise.all(
      graph.edgeDefinitions.map(async (d) => ({ name: d.collection, count: (await call.timed(call.db.collection(d.collection).count())).count })),
    );
    const totalVertices = vertices.reduce((n, v) => n + v.count, 0);
    const totalEdges = edges.reduce((n, e) => n + e.count, 0);
    let busiest: { vertex: string; out_degree: number } | null = null;
    for (const d of graph.edgeDefinitions) {
      const [top] = await queryAll<{ vertex: string; out_degree: number }>(
        call,
        'FOR e IN @@e COLLECT vertex = e._from WITH COUNT INTO out_degree SORT out_degree DESC LIMIT 1 RETURN { vertex, out_degree }',
        { '@e': d.collection },
      );
      if (top && (!busiest || top.out_degree > busiest.out_degree)) busiest = top;
    }
    return {
      graph: input.graph,
      vertices: totalVertices,
      edges: totalEdges,
      average_out_degree: totalVertices ? totalEdges / totalVertices : 0,
      busiest_vertex: busiest,
      vertex_collections: vertices,
      edge_collections: edges,
    };
  },
});

async function integrity(call: ArangoCall, graph: GraphInfo, limit: number) {
  const problems: { edge: string; problem: string }[] = [];
  let checked = 0;
  for (const d of graph.edgeDefinitions) {
    const rows = await queryAll<{ _id: string; _from: string; _to: string; from_exists: boolean; to_exists: boolean }>(
      call,
      'FOR e IN @@e RETURN { _id: e._id, _from: e._from, _to: e._to, from_exists: DOCUMENT(e._from) != null, to_exists: DOCUMENT(e._to) != null }',
      { '@e': d.collection },
    );
    checked += rows.length;
    for (const e of rows) {
      if (!e.from_exists) problems.push({ edge: e._id, problem: `_from ${e._from} does not exist` });
      if (!e.to_exists) problems.push({ edge: e._id, problem: `_to ${e._to} does not exist` });
      if (!d.from.includes(e._from.split('/')[0]!))
        problems.push({ edge: e._id, problem: `_from ${e._from} is outside the edge definition (${d.from.join(', ')})` });
      if (!d.to.includes(e._to.split('/')[0]!)) problems.push({ edge: e._id, problem: `_to ${e._to} is outside the edge definition (${d.to.join(', ')})` });
    }
  }
  return { graph: graph.name, edges_checked: checked, valid: problems.length === 0, problem_count: problems.length, problems: problems.slice(0, limit) };
}

export const arangoValidateGraphIntegrity = defineArangoTool({
  name: 'arango_validate_graph_integrity',
  command: {
    id: 'arango validate-graph',
    examples: ['<%= config.bin %> arango validate-graph --graph social', '<%= config.bin %> arango validate-graph --json'],
  },
  title: 'Check graphs for dangling edges',
  description:
    'Check that every edge of a graph (default: every graph) connects existing vertices from the collections its edge definition allows; list the problems.',
  input: z.strictObject({
    graph: z.string().min(1).optional().describe('Graph to check (default: all).'),
    limit: z.int().min(1).max(10000).default(100).describe('Most problems listed per graph.'),
  }),
  annotations: READ_ONLY,
  writes: false,
  async run(input, call) {
    const names = input.graph ? [input.graph] : ((await call.timed(call.db.listGraphs())) as unknown as { name: string }[]).map((g) => g.name).sort();
    const graphs = [];
    for (const name of names) graphs.push(await integrity(call, await graphInfo(call, name), input.limit));
    return { valid: graphs.every((g) => g.valid), graphs };
  },
});

async function backupGraphTo(call: ArangoCall, name: string, folder: string) {
  const { writeBackup } = await import('./backup-writer.js');
  const graph = await graphInfo(call, name);
  const collections = [
    ...vertexCollections(graph).map((c) => ({ name: c, type: 'document' as const })),
    ...graph.edgeDefinitions.map((d) => ({ name: d.collection, type: 'edge' as const })),
  ];
  return { graph: name, folder, collections: await writeBackup(call, folder, collections, { graph }) };
}

export const arangoBackupGraph = defineArangoTool({
  name: 'arango_backup_graph',
  command: { id: 'arango backup-graph', args: ['graph'], examples: ['<%= config.bin %> arango backup-graph social --output-dir ./social-backup'] },
  title: 'Back up a named graph',
  description:
    "Write a graph's definition and all its vertex and edge collections to a folder (manifest.json plus one JSON file per collection), for arango_restore_graph.",
  input: z.strictObject({
    graph: graphName,
    output_dir: z.string().min(1).optional().describe('Folder to write, inside the backup folder (default <database>-<time>/<graph>).'),
  }),
  // Writes files (in the backup folder only): no reader.
  annotations: { ...READ_ONLY, readOnlyHint: false, idempotentHint: false },
  writes: false,
  async run(input, call) {
    const [{ join }, layout] = await Promise.all([import('node:path'), import('../../arango/backup-layout.js')]);
    const { folder } = await backupFolder(call.ctx, input.output_dir, join(layout.defaultBackupFolder(call.settings.database, call.ctx.now()), input.graph));
    return backupGraphTo(call, input.graph, folder);
  },
});

export const arangoBackupNamedGraphs = defineArangoTool({
  name: 'arango_backup_named_graphs',
  command: { id: 'arango backup-graphs', examples: ['<%= config.bin %> arango backup-graphs --output-dir ./graphs'] },
  title: 'Back up every named graph',
  description: 'Back up several named graphs (default: all), each into its own subfolder as arango_backup_graph does.',
  input: z.strictObject({
    graphs: z.array(z.string().min(1)).optional().describe('Graphs to back up (default: all).'),
    output_dir: z.string().min(1).optional().describe('Folder to write, inside the backup folder (default <database>-<time>).'),
  }),
  // Writes files (in the backup folder only): no reader.
  annotations: { ...READ_ONLY, readOnlyHint: false, idempotentHint: false },
  writes: false,
  async run(input, call) {
    const [{ join }, layout] = await Promise.all([import('node:path'), import('../../arango/backup-layout.js')]);
    const names = input.graphs ?? ((await call.timed(call.db.listGraphs())) as unknown as { name: string }[]).map((g) => g.name).sort();
    const { folder } = await backupFolder(call.ctx, input.output_dir, layout.defaultBackupFolder(call.settings.database, call.ctx.now()));
    const graphs = [];
    for (const name of names) graphs.push(await backupGraphTo(call, name, join(folder, layout.collectionFile(name).replace(/\.json$/, ''))));
    return { folder, graphs };
  },
});

export const arangoRestoreGraph = defineArangoTool({
  name: 'arango_restore_graph',
  command: {
    id: 'arango restore-graph',
    args: ['input_dir'],
    examples: [
      '<%= config.bin %> arango restore-graph ./social-backup --conflict skip',
      '<%= config.bin %> arango restore-graph ./social-backup --graph social2 --conflict overwrite',
    ],
  },
  title: 'Restore a graph backup',
  description:
    'Restore a folder written by arango_backup_graph: create the graph (under its name or a new one) and insert its documents. conflict decides what happens to documents whose _key exists: skip them, overwrite them, or stop with an error. Then check integrity.',
  input: z.strictObject({
    input_dir: z.string().min(1).describe('Folder with manifest.json, inside the backup folder.'),
    graph: z.string().min(1).optional().describe('Name to restore as (default: the backed-up name).'),
    conflict: z.enum(['skip', 'overwrite', 'error']).default('error').describe('For documents whose _key exists: skip, overwrite or error.'),
    validate_integrity: z.boolean().default(true).describe('Check edges afterwards.'),
  }),
  annotations: ARANGO_DESTRUCTIVE,
  writes: true,
  async run(input, call) {
    const [{ readFileSync }, { join }, layout] = await Promise.all([import('node:fs'), import('node:path'), import('../../arango/backup-layout.js')]);
    const { folder } = await backupFolder(call.ctx, input.input_dir, input.input_dir);
    let manifest: BackupManifest;
    try {
      manifest = JSON.parse(readFileSync(join(folder, layout.MANIFEST_FILE), 'utf8')) as BackupManifest;
    } catch (error) {
      throw new ToolError('VALIDATION_ERROR', `No readable ${layout.MANIFEST_FILE} in ${folder}: ${(error as Error).message}`, {
        hint: 'Give a folder written by arango_backup_graph.',
      });
    }
    if (manifest.format !== 'mcpkit-arango-backup/1' || !manifest.graph)
      throw new ToolError('VALIDATION_ERROR', `${folder} is not a graph backup (manifest without a graph).`);
    const name = input.graph ?? manifest.graph.name;
    const existing = ((await call.timed(call.db.listGraphs())) as unknown as { name: string }[]).some((g) => g.name === name);
    if (existing && input.conflict === 'error')
      throw new ToolError('ARANGO_ERROR', `graph already exists: ${name}`, {
        details: { errorNum: 1925, http_code: 409 },
        hint: 'Use conflict skip or overwrite, or restore under another name with graph.',
      });
    if (!existing)
      await call.timed(call.db.createGraph(name, manifest.graph.edgeDefinitions as never, { orphanCollections: manifest.graph.orphanCollections }));
    const restored = [];
    // Vertices before edges, so edges never point at documents still to come.
    for (const entry of [...manifest.collections].sort((a, b) => (a.type === b.type ? 0 : a.type === 'document' ? -1 : 1))) {
      const docs = JSON.parse(readFileSync(join(folder, layout.collectionFile(entry.name)), 'utf8')) as Record<string, unknown>[];
      const coll = call.db.collection(entry.name);
      let inserted = 0;
      let skipped = 0;
      for (let start = 0; start < docs.length; start += 1000) {
        const batch = docs.slice(start, start + 1000).map(({ _rev: _r, ...d }) => d);
        const results = (await call.timed(coll.saveAll(batch, input.conflict === 'overwrite' ? { overwriteMode: 'replace' } : {}))) as {
          error?: boolean;
          errorNum?: number;
          errorMessage?: string;
        }[];
        for (const [i, r] of results.entries()) {
          if (!r.error) inserted++;
          else if (r.errorNum === 1210 && input.conflict === 'skip') skipped++;
          else
            throw new ToolError('ARANGO_ERROR', `${entry.name}/${String(batch[i]!._key)}: ${r.errorMessage}`, {
              details: { errorNum: r.errorNum, collection: entry.name, restored },
            });
        }
      }
      restored.push({ collection: entry.name, type: entry.type, inserted, skipped });
    }
    const check = input.validate_integrity ? await integrity(call, await graphInfo(call, name), 100) : null;
    return { graph: name, created: !existing, collections: restored, integrity: check };
  },
});
