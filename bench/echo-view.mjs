// What the per-call benchmarks share: a config with one view, `one`, of server-everything (whose
// `echo` they call), written into the benchmark's own folder.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
export const everythingServer = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** Writes DIR/mcpkit.yaml with the view `one` of server-everything; returns its path. */
export function writeEchoConfig(dir) {
  const configFile = join(dir, 'mcpkit.yaml');
  writeFileSync(
    configFile,
    JSON.stringify({
      mcp_servers: { everything: { command: process.execPath, args: [everythingServer, 'stdio'] } },
      tool_views: { one: { servers: ['everything'] } },
    }),
  );
  return configFile;
}
