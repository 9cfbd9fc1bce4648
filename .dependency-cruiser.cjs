/**
 * The layers of src/ and what each may import (docs/ARCHITECTURE.md). Run by `npm test`
 * (`npm run check:layers`): an import that points up a layer fails the build.
 *   core -> config -> tool -> retrieve|registry|arango|auth|audit -> proxy -> tools -> app -> mcp -> cli -> daemon -> commands
 * A layer may import itself and anything below it; type-only imports count too.
 */
const order = ['core', 'config', 'tool', 'retrieve|registry|arango|auth|audit', 'proxy', 'tools', 'app', 'mcp', 'cli', 'daemon', 'commands'];
const folder = (layer) => `^src/(${layer})/`;

const upward = order.slice(0, -1).map((layer, i) => ({
  name: `${layer.split('|')[0]}-imports-up`,
  comment: `src/${layer}/ may not import the layers above it: ${order.slice(i + 1).join(', ')}`,
  severity: 'error',
  from: { path: folder(layer) },
  to: { path: folder(order.slice(i + 1).join('|')) },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'domains-are-separate',
      comment: 'retrieve, registry, arango, auth and audit are independent domains: none imports another',
      severity: 'error',
      from: { path: '^src/(retrieve|registry|arango|auth|audit)/' },
      to: { path: '^src/(retrieve|registry|arango|auth|audit)/', pathNot: '^src/$1/' },
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
