// Starts the ArangoDB test server and prints its URL (for trying the CLI by hand): node test/support/serve-fake-arango.mjs
import { startArango } from './arango-server.mjs';

const server = await startArango({ port: Number(process.env.PORT ?? 0) });
process.stdout.write(`${server.url}\n`);
