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
 * Inside src/proxy/, its subsystems, each a folder, from the bottom: how a server is started
 * (sandbox), the two protocol eras (eras), pins and the scanner (pins), upstream connections and
 * the calls sent on them (upstream), what a view publishes (catalog), how a call is routed
 * (calls); the hub and what wires them (src/proxy/*.ts) on top. A folder may import itself and the
 * folders below it.
 */
const proxyOrder = ['sandbox', 'eras', 'pins', 'upstream', 'catalog', 'calls'];
const proxyUpward = proxyOrder.map((part, i) => ({
  name: `proxy-${part}-imports-up`,
  comment: `src/proxy/${part}/ may not import what is above it: ${[...proxyOrder.slice(i + 1), 'the proxy core (src/proxy/*.ts)'].join(', ')}`,
  severity: 'error',
  from: { path: `^src/proxy/${part}/` },
  to: { path: `^src/proxy/(${proxyOrder.slice(i + 1).join('|') || '\0'}/|[^/]+\\.ts$)` },
}));

module.exports = {
  forbidden: [
    ...upward,
    ...proxyUpward,
    {
      name: 'domains-are-separate',
      comment: 'retrieve, registry, arango, auth, audit, code and store are independent domains: none imports another',
      severity: 'error',
      from: { path: '^src/(retrieve|registry|arango|auth|audit|code|store)/' },
      to: { path: '^src/(retrieve|registry|arango|auth|audit|code|store)/', pathNot: '^src/$1/' },
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
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
