/**
 * What each of mcpkit's own tool groups is for, in the words a task uses: the search meta-tools
 * name them so an agent knows what is behind them, and their ranking matches on them. Pure.
 */
export const GROUP_SUMMARIES: Readonly<Record<string, string>> = {
  config: "mcpkit's config file",
  server: 'the upstream MCP servers in the config',
  view: 'tool views served to clients',
  filter: 'include/exclude rules for upstream tools',
  retrieve: 'reading and searching local docs and code',
  registry: 'MCP server registries',
  arango: 'ArangoDB databases: AQL, documents, indexes, graphs',
};
