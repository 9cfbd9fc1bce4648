/**
 * The layers of src/ and what each may import (docs/ARCHITECTURE.md). Run by `npm test`
 * (`npm run check:layers`): an import that points up a layer fails the build.
 *   core -> conditions -> config -> tool -> retrieve|registry|arango|auth|audit|code|store -> proxy -> tools -> app -> mcp -> cli|daemon/client -> daemon/server -> commands
 * (the daemon's client, src/daemon/client/, is a peer of the CLI it serves; its server runs command lines of the CLI)
 * A layer may import itself and anything below it; type-only imports count too.
 */
const order = [
  'core',
  'conditions',
  'config',
  'tool',
  'retrieve|registry|arango|auth|audit|code|store',
  'proxy',
  'tools',
  'app',
  'mcp',
  'cli|daemon/client',
  'daemon/server',
  'commands',
];
const folder = (layer) => `^src/(${layer})/`;

const upward = order.slice(0, -1).map((layer, i) => ({
  name: `${layer.split('|')[0]}-imports-up`,
  comment: `src/${layer}/ may not import the layers above it: ${order.slice(i + 1).join(', ')}`,
  severity: 'error',
  from: { path: folder(layer) },
  to: { path: folder(order.slice(i + 1).join('|')) },
}));

/**
 * Inside a layer, its subsystems, each a folder, from the bottom; the files at the layer's root
 * (src/LAYER/*.ts: what wires the subsystems, and the built entry points) on top. A folder may
 * import itself and the folders below it, never the ones above it nor the root's files.
 */
function insideUpward(layer, parts, comment) {
  return parts.map((part, i) => ({
    name: `${layer}-${part}-imports-up`,
    comment: `${comment}: src/${layer}/${part}/ may not import what is above it: ${[...parts.slice(i + 1), `the root of src/${layer}/`].join(', ')}`,
    severity: 'error',
    from: { path: `^src/${layer}/${part}/` },
    to: { path: `^src/${layer}/(${parts.slice(i + 1).join('|') || '\0'}/|[^/]+\\.ts$)` },
  }));
}

/**
 * src/proxy/: how a server is started (sandbox), the two protocol eras (eras), pins and the
 * scanner (pins), upstream connections and the calls sent on them (upstream), what a view
 * publishes (catalog), how a call is routed (calls); the hub on top.
 */
const proxyUpward = insideUpward('proxy', ['sandbox', 'eras', 'pins', 'upstream', 'catalog', 'calls'], 'proxy');

/**
 * src/mcp/: who may use which route (access), the one road of an MCP request (pipeline), tasks
 * and calls another replica answers (tasks), the HTTP front end (http); run-serve.ts and the
 * stdio front end on top.
 */
const mcpUpward = insideUpward('mcp', ['access', 'pipeline', 'tasks', 'http'], 'mcp');

/**
 * src/cli/: what the terminal reads and prints (terminal), how a command line's words become
 * arguments (args), what the terminal shows of a serve (gateway); the commands' base, the tool
 * runner and the built entry points on top.
 */
const cliUpward = insideUpward('cli', ['terminal', 'args', 'gateway'], 'cli');

/**
 * src/config/: the config's shape (schema), secret references (secrets), mcpkit's own files and
 * how they are written (files), what is wrong with a config (check), edits of its YAML (edits),
 * other clients' configs read in (imports); loading, reloading and the edit entry on top.
 */
const configUpward = insideUpward('config', ['schema', 'secrets', 'files', 'check', 'edits', 'imports'], 'config');

/**
 * src/retrieve/: how a pattern, a glob or a path rule matches (patterns: pure, no I/O); walking,
 * reading, indexing and searching files on top.
 */
const retrieveUpward = insideUpward('retrieve', ['patterns'], 'retrieve');

module.exports = {
  forbidden: [
    ...upward,
    ...proxyUpward,
    ...mcpUpward,
    ...cliUpward,
    ...configUpward,
    ...retrieveUpward,
    {
      name: 'domains-are-separate',
      comment: 'retrieve, registry, arango, auth, audit, code and store are independent domains: none imports another',
      severity: 'error',
      from: { path: '^src/(retrieve|registry|arango|auth|audit|code|store)/' },
      to: { path: '^src/(retrieve|registry|arango|auth|audit|code|store)/', pathNot: '^src/$1/' },
    },
    {
      name: 'proxy-has-its-own-call-context',
      comment:
        "src/proxy/ takes a call with a context of its own (proxy/calls/call-context.ts), built where the call enters it, not the tools' ToolContext: it may not import src/tool/context.ts",
      severity: 'error',
      from: { path: '^src/proxy/' },
      to: { path: '^src/tool/context\\.ts$' },
    },
    {
      // Resolution is by extension (options below): an import it cannot resolve would otherwise
      // pass every rule above unseen.
      name: 'not-to-unresolvable',
      comment: 'an import of src/ that resolves to no file',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'no-circular',
      comment: 'a cycle hides a layering mistake (and dynamic imports do not excuse it)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    // Not tsConfig: src/ imports only relative paths (`./x.js` for x.ts), which these extensions
    // resolve, and packages by their `exports`. Compared as JSON with the tsconfig's resolution
    // (TypeScript's, and a paths plugin): the same 2117 dependencies between src/ files, type-only
    // ones too, for 8.7 CPU-s against 11.7.
    enhancedResolveOptions: { extensions: ['.ts', '.js'], exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
