// A remote MCP server standing in for GitHub's (https://api.githubcopilot.com/mcp/) in the guide's
// doc tests (test/e2e/doc-lines.test.ts, in the test's process): streamable HTTP (stateless), tools
// named as GitHub's, and a bearer token it checks the way a hosted server does (401 without it).
import { createServer } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

function makeServer() {
  const server = new McpServer({ name: 'github-standin', version: '1.0.0' });
  const query = z.object({ query: z.string().describe('Search query') });
  server.registerTool(
    'search_code',
    { description: 'Search code across repositories.', inputSchema: query, annotations: { readOnlyHint: true } },
    async ({ query: q }) => ({
      content: [{ type: 'text', text: `code results for ${q}` }],
    }),
  );
  server.registerTool(
    'search_issues',
    { description: 'Search issues and pull requests.', inputSchema: query, annotations: { readOnlyHint: true } },
    async ({ query: q }) => ({
      content: [{ type: 'text', text: `issue results for ${q}` }],
    }),
  );
  server.registerTool('delete_repository', { description: 'Delete a repository.', inputSchema: z.object({ repo: z.string() }) }, async () => ({
    content: [{ type: 'text', text: 'no' }],
  }));
  return server;
}

/** Serves the stand-in on 127.0.0.1 (a free port), checking `token`: its /mcp/ URL, and what closes it. */
export function startGithubStandin(token) {
  const http = createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad credentials"}');
      return;
    }
    const server = makeServer();
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${http.address().port}/mcp/`,
        close: () => new Promise((done) => (http.closeAllConnections(), http.close(() => done()))),
      }),
    );
  });
}
