import { EXPOSURES } from './schema/defaults.js';

/**
 * The commented file `config init` writes: valid as is, every section explained. The examples
 * stand above their key, so that entries mcpkit adds later (`server add`, `view create`) land
 * under it, right after its comments, one per line.
 */
export const STARTER_CONFIG = `# mcpkit configuration. Reference: "mcpkit config schema" prints the JSON Schema.
# Values may use \${VAR} or \${VAR:-default}; they are expanded when the file is read
# and never written back, so secrets can stay in the environment.

# Upstream MCP servers that "mcpkit serve" proxies ("mcpkit server add" writes them here), e.g.:
#  everything:
#    command: npx
#    args: ["-y", "@modelcontextprotocol/server-everything"]
#    timeout_ms: 30000
#  github:
#    url: https://api.githubcopilot.com/mcp/
#    headers:
#      Authorization: "Bearer \${GITHUB_TOKEN}"
#    tools:                     # allow-list, with optional overrides
#      search_code: {}
#      search_issues:
#        description: "Search issues. {original}"
#    filter:                    # ordered rules, first match wins
#      - exclude: "*_delete"
mcp_servers: {}

# Named views: filtered catalogs served at "mcpkit serve --view NAME", e.g.:
#  research:
#    description: Read-only research tools
#    exposure: search           # ${EXPOSURES.join(' | ').replace('auto', 'auto (default)')}
tool_views: {}

# Tools built from several upstream calls.
composite_tools: {}

# pre_call / post_call hook modules.
hooks: {}

# Settings of the tool groups and of "serve".
registry: {}
arango: {}
retrieve: {}
serve: {}
`;
