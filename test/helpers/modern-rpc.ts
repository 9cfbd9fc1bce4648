/**
 * One 2026-07-28 request over HTTP as a raw client sends it (the conformance suite's way): the
 * envelope in _meta, the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, and the answer read
 * from JSON or from the last event of a stream.
 */
let nextId = 1;

export async function modernRpc(
  url: string,
  method: string,
  params: Record<string, unknown>,
  options: { token?: string; capabilities?: Record<string, unknown>; client?: string } = {},
): Promise<{ status: number; result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const name = typeof params.taskId === 'string' ? params.taskId : typeof params.name === 'string' ? params.name : undefined;
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
        'io.modelcontextprotocol/clientInfo': { name: options.client ?? 'modern-rpc', version: '1' },
      },
    },
  };
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name !== undefined ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const line = text.includes('data:')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .pop()!
        .slice(5)
    : text;
  return { status: response.status, ...(JSON.parse(line) as { result?: Record<string, unknown>; error?: { code: number; message: string } }) };
}

/** What a client declares to take tasks (and be asked, for input_required). */
export const TASKS_CAPABILITIES = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } };
