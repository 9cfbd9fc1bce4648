import type { ToolGroup } from '../../tool/define.js';
import { arangoBackup, arangoCreateCollection, arangoDatabaseStatus, arangoListCollections } from './collections.js';
import {
  arangoBulkInsert,
  arangoBulkUpdate,
  arangoInsert,
  arangoInsertWithValidation,
  arangoRemove,
  arangoUpdate,
  arangoValidateReferences,
} from './documents.js';
import { arangoBackupGraph, arangoBackupNamedGraphs, arangoGraphStatistics, arangoRestoreGraph, arangoValidateGraphIntegrity } from './graph-upkeep.js';
import {
  arangoAddEdge,
  arangoAddEdgeDefinition,
  arangoAddVertex,
  arangoAddVertexCollection,
  arangoCreateGraph,
  arangoListGraphs,
  arangoShortestPath,
  arangoTraverse,
} from './graphs.js';
import { arangoCreateIndex, arangoDeleteIndex, arangoListIndexes } from './indexes.js';
import { arangoExplainQuery, arangoQuery, arangoQueryBuilder, arangoQueryProfile } from './query.js';
import { arangoCreateSchema, arangoValidateDocument } from './schemas.js';

/** Every arango tool, in the order the ArangoDB tool set has always listed them. */
export const arangoTools = [
  arangoQuery,
  arangoListCollections,
  arangoInsert,
  arangoUpdate,
  arangoRemove,
  arangoCreateCollection,
  arangoBackup,
  arangoListIndexes,
  arangoCreateIndex,
  arangoDeleteIndex,
  arangoExplainQuery,
  arangoQueryProfile,
  arangoValidateReferences,
  arangoInsertWithValidation,
  arangoBulkInsert,
  arangoBulkUpdate,
  arangoCreateSchema,
  arangoValidateDocument,
  arangoQueryBuilder,
  arangoCreateGraph,
  arangoAddEdge,
  arangoAddVertex,
  arangoTraverse,
  arangoShortestPath,
  arangoListGraphs,
  arangoAddVertexCollection,
  arangoAddEdgeDefinition,
  arangoBackupGraph,
  arangoRestoreGraph,
  arangoBackupNamedGraphs,
  arangoValidateGraphIntegrity,
  arangoGraphStatistics,
  arangoDatabaseStatus,
];

export const arangoGroup: ToolGroup = {
  name: 'arango',
  summary: 'ArangoDB databases: AQL, documents, indexes, graphs',
  tools: arangoTools,
  // A configured ArangoDB is connected to in the background (with the configured attempts), so
  // serve is up at once and a late database is still found (the ArangoDB tools degrade, they never stop serve).
  onServe: async (ctx) => {
    void import('./shared.js').then(({ startArango }) => startArango(ctx)).catch(() => undefined);
  },
};
