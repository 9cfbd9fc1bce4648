import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { fileTools, writeConfig } from '../helpers/upstreams.js';

/**
 * An upstream's input schemas as mcpkit checks arguments against them (proxy/calls/json-schema-engine.ts),
 * through serve with the SDK client: two tools whose schemas share an `$id` are each held to their
 * own (a shared ajv engine refused the second as "already exists", and it went unchecked), and a
 * schema its dialect's meta-schema rejects is not enforced, said once in serve's log, while the
 * call still reaches the upstream.
 */
const SHARED_ID = 'urn:mcpkit-test:arguments';
const TOOLS = [
  { name: 'counted', inputSchema: { $id: SHARED_ID, type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } },
  { name: 'named', inputSchema: { $id: SHARED_ID, type: 'object', properties: { s: { type: 'string' } }, required: ['s'], additionalProperties: false } },
  // `strin` is no JSON Schema type: draft-07's meta-schema rejects the schema.
  { name: 'loose', inputSchema: { type: 'object', properties: { a: { type: 'strin' } } } },
].map((tool) => ({ ...tool, description: `${tool.name} answers` }));

let serve: Awaited<ReturnType<typeof serveStdioInProcess>>;
beforeAll(async () => {
  const tools = join(tempDir(), 'tools.json');
  writeFileSync(tools, JSON.stringify(TOOLS));
  serve = await serveStdioInProcess(writeConfig({ mcp_servers: { odd: { ...fileTools(tools) } } }));
});
afterAll(async () => {
  await serve?.close();
});

// mcpkit's own tools are listed too, so the upstream's come prefixed.
const call = async (name: string, args: Record<string, unknown>) => (await serve.client.callTool({ name: `odd__${name}`, arguments: args })) as CallToolResult;
const errorOf = (result: CallToolResult) => (result.structuredContent as { error?: { code: string; message: string } } | undefined)?.error;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('upstream input schemas', () => {
  it('holds each of two tools whose schemas share an $id to its own schema', async () => {
    expect(errorOf(await call('counted', {}))).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('"n": is required') });
    expect(errorOf(await call('named', {}))).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('"s": is required') });
    expect(errorOf(await call('named', { s: 1 }))).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('must be string') });
    expect(textOf(await call('counted', { n: 2 }))).toContain('called counted with {"n":2} meta');
    expect(textOf(await call('named', { s: 'x' }))).toContain('called named with {"s":"x"} meta');
    expect(serve.stderr()).not.toContain('not enforced');
  });

  it('does not enforce a schema its meta-schema rejects, says so once, and passes the call on', async () => {
    expect(textOf(await call('loose', { a: 5 }))).toContain('called loose with {"a":5} meta');
    expect(textOf(await call('loose', { a: 'x' }))).toContain('called loose with {"a":"x"} meta');
    const said = serve.lines.filter((line) => line.includes('an input schema is not enforced: schema is invalid'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('schema is invalid: data/properties/a/type must be equal to one of the allowed values');
  });
});
