import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { inputJsonSchema } from './schema.js';
import type { AnyTool } from './tool.js';

const published = new WeakMap<AnyTool, Tool>();

/** MCP's wire shape of a tool; the JSON Schema comes from the same zod schema that validates calls. Built once per tool. */
export function toMcpTool(tool: AnyTool): Tool {
  let out = published.get(tool);
  if (!out) {
    out = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: inputJsonSchema(tool.input) as Tool['inputSchema'],
      annotations: { title: tool.title, ...tool.annotations },
    };
    published.set(tool, out);
  }
  return out;
}
