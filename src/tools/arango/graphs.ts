import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { ARANGO_WRITE, defineArangoTool, queryAll, type ArangoCall } from './shared.js';
import { READ_ONLY } from '../../tool/define.js';

export const graphName = z.string().min(1).describe('Graph name.');
const edgeDefinition = z.strictObject({
  collection: z.string().min(1).describe('Edge collection.'),
  from: z.array(z.string().min(1)).min(1).describe('Vertex collections edges start from.'),
  to: z.array(z.string().min(1)).min(1).describe('Vertex collections edges point to.'),
});
const direction = z.enum(['OUTBOUND', 'INBOUND', 'ANY']).default('OUTBOUND').describe('Follow edges out of, into, or either way.');

export interface GraphInfo {
  name: string;
  edgeDefinitions: { collection: string; from: string[]; to: string[] }[];
  orphanCollections: string[];
}

export async function graphInfo(call: ArangoCall, name: string): Promise<GraphInfo> {
  const info = (await call.timed(call.db.graph(name).get())) as unknown as GraphInfo;
  return { name, edgeDefinitions: info.edgeDefinitions ?? [], orphanCollections: info.orphanCollections ?? [] };
}

export function vertexCollections(graph: GraphInfo): string[] {
  return [...new Set([...graph.edgeDefinitions.flatMap((d) => [...d.from, ...d.to]), ...graph.orphanCollections])].sort();
}

/** Where graph traversals read edges: a named graph, or edge collections (one of the two). */
function via(input: { graph?: string; edge_collections?: string[] }, bind: Record<string, unknown>): string {
  if ((input.graph === undefined) === (input.edge_collections === undefined || input.edge_collections.length === 0)) {
    throw new ToolError('VALIDATION_ERROR', 'Give either graph or edge_collections.');
  }
  if (input.graph !== undefined) {
    bind.graph = input.graph;
    return 'GRAPH @graph';
  }
  return input.edge_collections!.map((c, i) => ((bind[`@e${i}`] = c), `@@e${i}`)).join(', ');
}

export const arangoCreateGraph = defineArangoTool({
  name: 'arango_create_graph',
  command: {
    id: 'arango create-graph',
    args: ['name'],
    examples: ['<%= config.bin %> arango create-graph social --edge-definitions \'[{"collection":"follows","from":["users"],"to":["users"]}]\''],
  },
  title: 'Create a named graph',
  description:
    'Create a named graph from edge definitions (edge collection, from and to vertex collections) and optional orphan vertex collections; missing collections are created.',
  input: z.strictObject({
    name: graphName,
    edge_definitions: z.array(edgeDefinition).min(1).describe('Edge definitions: {collection, from, to}.'),
    orphan_collections: z.array(z.string().min(1)).optional().describe('Vertex collections without edges yet.'),
  }),
  annotations: ARANGO_WRITE,
  writes: true,
  async run(input, call) {
    await call.timed(call.db.createGraph(input.name, input.edge_definitions, { orphanCollections: input.orphan_collections ?? [] }));
    return graphInfo(call, input.name);
  },
  render: (r, ui) => `${ui.color.green('✓')} Created graph ${r.name} (${r.edgeDefinitions.map((d) => d.collection).join(', ')})`,
});

export const arangoListGraphs = defineArangoTool({
  name: 'arango_list_graphs',
  command: { id: 'arango graphs', examples: ['<%= config.bin %> arango graphs'] },
  title: 'List named graphs',
  description: 'List the named graphs with their edge definitions and orphan collections.',
  input: z.strictObject({}),
  annotations: READ_ONLY,
  writes: false,
  async run(_input, call) {
    const graphs = (await call.timed(call.db.listGraphs())) as unknown as GraphInfo[];
    return {
      graphs: graphs
        .map((g) => ({
          name: g.name ?? (g as unknown as { _key: string })._key,
          edgeDefinitions: g.edgeDefinitions,
          orphanCollections: g.orphanCollections ?? [],
        }))
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
    };
  },
  render: (r, ui) =>
    r.graphs.length
      ? ui.table(
          r.graphs.map((g) => ({
            name: g.name,
            edges: g.edgeDefinitions.map((d) => `${d.collection}: ${d.from.join('|')} -> ${d.to.join('|')}`).join('; '),
            orphans: g.orphanCollections.join(', '),
          })),
        )
      : ui.color.dim('No graphs.'),
});

export const arangoAddVertexCollection = defineArangoTool({
  name: 'arango_add_vertex_collection',
  command: { id: 'arango add-vertex-collection', args: ['graph', 'collection'], examples: ['<%= config.bin %> arango add-vertex-collection social places'] },
  title: 'Add a vertex collection to a graph',
  description: 'Add a vertex collection to a named graph (as an orphan collection until an edge definition uses it); created when missing.',
  input: z.strictObject({ graph: graphName, collection: z.string().min(1).describe('Vertex collection.') }),
  annotations: ARANGO_WRITE,
  writes: true,
  async run(input, call) {
    await call.timed(call.db.graph(input.graph).addVertexCollection(input.collection));
    return graphInfo(call, input.graph);
  },
});

export const arangoAddEdgeDefinition = defineArangoTool({
  name: 'arango_add_edge_definition',
  command: {
    id: 'arango add-edge-definition',
    args: ['graph'],
    examples: ['<%= config.bin %> arango add-edge-definition social --collection visits --from users --to places'],
  },
  title: 'Add an edge definition to a graph',
  description: 'Add an edge collection to a named graph with the vertex collections its edges connect; missing collections are created.',
  input: z.strictObject({
    graph: graphName,
    collection: z.string().min(1).describe('Edge collection.'),
    from: z.array(z.string().min(1)).min(1).describe('Start vertex collections.'),
    to: z.array(z.string().min(1)).min(1).describe('End vertex collections.'),
  }),
  annotations: ARANGO_WRITE,
  writes: true,
  async run(input, call) {
    await call.timed(call.db.graph(input.graph).addEdgeDefinition({ collection: input.collection, from: input.from, to: input.to }));
    return graphInfo(call, input.graph);
  },
});

export const arangoAddVertex = defineArangoTool({
  name: 'arango_add_vertex',
  command: {
    id: 'arango add-vertex',
    args: ['graph', 'collection'],
    examples: ['<%= config.bin %> arango add-vertex social users --vertex \'{"_key":"ada","name":"Ada"}\''],
  },
  title: 'Add a vertex to a graph',
  description: "Insert a vertex into one of a graph's vertex collections.",
  input: z.strictObject({
    graph: graphName,
    collection: z.string().min(1).describe('Vertex collection of the graph.'),
    vertex: z.record(z.string(), z.unknown()).describe('The vertex document.'),
  }),
  annotations: ARANGO_WRITE,
  writes: true,
  async run(input, call) {
    const meta = await call.timed(call.db.graph(input.graph).vertexCollection(input.collection).save(input.vertex, { returnNew: true }));
    return { _key: meta._key, _id: meta._id, _rev: meta._rev, new: meta.new };
  },
  render: (r, ui) => `${ui.color.green('✓')} Added vertex ${r._id}`,
});

export const arangoAddEdge = defineArangoTool({
  name: 'arango_add_edge',
  command: {
    id: 'arango add-edge',
    args: ['graph', 'collection'],
    examples: ['<%= config.bin %> arango add-edge social follows --from users/ada --to users/alan --attributes \'{"since":2024}\''],
  },
  title: 'Add an edge to a graph',
  description: "Insert an edge from one vertex to another (by _id) into one of a graph's edge collections; the graph checks the edge definition.",
  input: z.strictObject({
    graph: graphName,
    collection: z.string().min(1).describe('Edge collection of the graph.'),
    from: z.string().min(3).describe('_id of the start vertex, e.g. users/ada.'),
    to: z.string().min(3).describe('_id of the end vertex.'),
    attributes: z.record(z.string(), z.unknown()).optional().describe('More attributes of the edge.'),
  }),
  annotations: ARANGO_WRITE,
  writes: true,
  async run(input, call) {
    const meta = await call.timed(
      call.db
        .graph(input.graph)
        .edgeCollection(input.collection)
        .save({ ...input.attributes, _from: input.from, _to: input.to }, { returnNew: true }),
    );
    return { _key: meta._key, _id: meta._id, _rev: meta._rev, new: meta.new };
  },
  render: (r, ui) => `${ui.color.green('✓')} Added edge ${r._id}`,
});

export const arangoTraverse = defineArangoTool({
  name: 'arango_traverse',
  command: {
    id: 'arango traverse',
    args: ['start'],
    examples: [
      '<%= config.bin %> arango traverse users/ada --graph social --max-depth 2',
      '<%= config.bin %> arango traverse users/ada --edge-collections follows --direction ANY --paths',
    ],
  },
  title: 'Traverse a graph',
  description:
    'Walk a graph from a start vertex: direction, depth range (min_depth..max_depth), a named graph or edge collections, optionally with full paths; at most limit results.',
  input: z.strictObject({
    start: z.string().min(3).describe('_id of the start vertex.'),
    graph: z.string().min(1).optional().describe('Named graph to walk (or edge_collections).'),
    edge_collections: z.array(z.string().min(1)).optional().describe('Edge collections to walk (instead of graph).'),
    direction,
    min_depth: z.int().min(0).max(100).default(1).describe('Shortest path length returned.'),
    max_depth: z.int().min(0).max(100).default(1).describe('Longest path length returned.'),
    paths: z.boolean().default(false).describe('Return each path (vertices and edges) too.'),
    limit: z.int().min(1).max(10000).default(100).describe('Most results.'),
  }),
  annotations: READ_ONLY,
  writes: false,
  async run(input, call) {
    if (input.min_depth > input.max_depth)
      throw new ToolError('VALIDATION_ERROR', `min_depth (${input.min_depth}) is greater than max_depth (${input.max_depth}).`);
    const bind: Record<string, unknown> = { start: input.start, min: input.min_depth, max: input.max_depth, limit: input.limit };
    const source = via(input, bind);
    // The direction is one of three keywords (checked by the schema); everything else is bound.
    const query = `FOR v, e, p IN @min..@max ${input.direction} @start ${source} LIMIT @limit RETURN ${input.paths ? '{ vertex: v, edge: e, path: p }' : '{ vertex: v, edge: e }'}`;
    const results = await queryAll<unknown>(call, query, bind);
    return { start: input.start, count: results.length, truncated: results.length === input.limit, results };
  },
});

export const arangoShortestPath = defineArangoTool({
  name: 'arango_shortest_path',
  command: {
    id: 'arango shortest-path',
    args: ['start', 'target'],
    examples: ['<%= config.bin %> arango shortest-path users/ada users/grace --graph social --direction ANY'],
  },
  title: 'Find the shortest path between two vertices',
  description: 'Find a shortest path (fewest edges) from one vertex to another in a named graph or edge collections; found is false when there is none.',
  input: z.strictObject({
    start: z.string().min(3).describe('_id of the start vertex.'),
    target: z.string().min(3).describe('_id of the end vertex.'),
    graph: z.string().min(1).optional().describe('Named graph (or edge_collections).'),
    edge_collections: z.array(z.string().min(1)).optional().describe('Edge collections (instead of graph).'),
    direction,
  }),
  annotations: READ_ONLY,
  writes: false,
  async run(input, call) {
    const bind: Record<string, unknown> = { start: input.start, target: input.target };
    const source = via(input, bind);
    const steps = await queryAll<{ vertex: unknown; edge: unknown }>(
      call,
      `FOR v, e IN ${input.direction} SHORTEST_PATH @start TO @target ${source} RETURN { vertex: v, edge: e }`,
      bind,
    );
    return { found: steps.length > 0, length: Math.max(0, steps.length - 1), vertices: steps.map((s) => s.vertex), edges: steps.slice(1).map((s) => s.edge) };
  },
});
