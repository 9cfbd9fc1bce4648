import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { docPlace, runDocLine, standInPackages } from '../helpers/doc-stand-ins.js';
import { readmeSection, shellLines } from '../helpers/readme-lines.js';

/**
 * A newcomer's path: the README's quick start, line by line as written, in a new project folder
 * and home with `mcpkit` on the PATH (as `npm link` puts it), the reference servers from
 * node_modules standing in for what npx would download. It ends as the README says an agent
 * begins: an MCP client (the SDK's) starts serve from the entry `view install` printed, lists the
 * view and calls one of its tools.
 */

const LINES = shellLines(readmeSection('Quick start'));
const place = docPlace('mcpkit-quick-start');
const outputs = new Map<string, string>();
let client: Client | undefined;

afterAll(async () => {
  await client?.close();
});

describe("the README's quick start, followed by a newcomer", () => {
  it('runs every line as written, in order, each ending with exit 0 and saying what the README says', async () => {
    // The newcomer's project: what the search lines find.
    mkdirSync(join(place.work, 'src'));
    writeFileSync(join(place.work, 'src/app.js'), 'export function main() {\n  // TODO: say hello\n  return 1;\n}\n');
    writeFileSync(join(place.work, 'NOTES.md'), '# Notes\n\nTODO: write the docs.\n');
    expect(LINES.filter((l) => l.illustrative)).toEqual([]);
    for (const line of LINES) {
      const ran = await runDocLine(standInPackages(line.command), place);
      expect(ran.code, `${line.command}\n${ran.stderr}`).toBe(0);
      outputs.set(line.command.split('  ')[0]!.trim(), ran.stdout);
    }
    const said = (start: string) => [...outputs].find(([command]) => command.startsWith(start))?.[1] ?? '';
    expect(said('mcpkit retrieve search TODO')).toContain('src/app.js-1-export function main() {');
    expect(said('mcpkit retrieve search TODO')).toContain('NOTES.md:3:TODO: write the docs.');
    expect(said('mcpkit retrieve find')).toContain('NOTES.md');
    expect(said('mcpkit call everything__echo message=hi')).toContain('Echo: hi');
    expect(said('mcpkit view tools demo')).toMatch(/everything__get-sum[\s\S]*memory__read_graph/);
  }, 180_000);

  it("ends with an agent: the client's entry from view install starts serve, which lists the view and calls its tool", async () => {
    const printed = [...outputs].find(([command]) => command.startsWith('mcpkit view install demo --client claude'))?.[1];
    expect(printed, 'the install line ran').toBeDefined();
    const entry = (JSON.parse(printed!) as { mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }> }).mcpServers[
      'mcpkit-demo'
    ]!;
    // The README's serve line is what the entry runs (with the config named, since a client starts it anywhere).
    const serveLine = LINES.find((l) => l.command.startsWith('mcpkit serve '))!
      .command.split(' ')
      .slice(1);
    expect(entry.args.join(' ')).toContain(serveLine.join(' '));
    client = new Client({ name: 'quick-start-agent', version: '1.0' });
    await client.connect(
      new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        env: { ...(place.env as Record<string, string>), ...entry.env },
        cwd: place.home,
        stderr: 'pipe',
      }),
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum', 'memory__read_graph']));
    expect(names).not.toContain('everything__get-env'); // not among the view's tools of that server
    const result = (await client.callTool({ name: 'everything__get-sum', arguments: { a: 2, b: 3 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain('The sum of 2 and 3 is 5.');
  }, 60_000);
});
