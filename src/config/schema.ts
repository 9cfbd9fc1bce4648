import * as z from 'zod';

/**
 * The whole config file. Top level and the server entries are strict so a typo is reported
 * rather than ignored; the sections owned by later features start open (`looseObject`).
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const name = (what: string) =>
  z.string().regex(NAME, `${what} names use letters, digits, "_", "-" and "." and start with a letter or digit`);

/** A string that may still hold `${VAR}` placeholders when an edit is validated before interpolation. */
const templated = (check: (value: string) => boolean, message: string) =>
  z.string().refine((value) => value.includes('${') || check(value), message);

const isUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

export const toolOverrideSchema = z.strictObject({
  description: z.string().optional().describe('Replaces the upstream description; {original} stands for the upstream text.'),
  name: z.string().optional().describe('Name to expose instead of the upstream name.'),
  enabled: z.boolean().optional().describe('false hides the tool.'),
});

export const filterRuleSchema = z.union([
  z.strictObject({ include: z.string().min(1).describe('Glob of tool names to allow.') }),
  z.strictObject({ exclude: z.string().min(1).describe('Glob of tool names to hide.') }),
]);

export const serverSchema = z
  .strictObject({
    description: z.string().optional(),
    command: z.string().min(1).optional().describe('Executable of a stdio server.'),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    url: templated(isUrl, 'url must be an http(s) URL').optional().describe('Endpoint of a remote server.'),
    headers: z.record(z.string(), z.string()).optional(),
    transport: z.enum(['auto', 'stdio', 'http', 'sse']).optional(),
    tools: z.record(z.string(), toolOverrideSchema.nullable()).optional().describe('Allow-list of tools with optional overrides.'),
    filter: z.array(filterRuleSchema).optional().describe('Ordered include/exclude globs; the first match wins.'),
    disabled: z.boolean().optional(),
    timeout_ms: z.int().positive().optional(),
  })
  .superRefine((server, ctx) => {
    if (server.command === undefined && server.url === undefined) {
      ctx.addIssue({ code: 'custom', message: 'a server needs either command (stdio) or url (remote)' });
    }
    if (server.command !== undefined && server.url !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'a server has either command or url, not both' });
    }
  });

export const viewSchema = z.looseObject({
  description: z.string().optional(),
  exposure: z.enum(['direct', 'search']).optional(),
});

const section = () => z.looseObject({}).default({});

export const configSchema = z.strictObject({
  mcp_servers: z.record(name('Server'), serverSchema).default({}),
  tool_views: z.record(name('View'), viewSchema).default({}),
  composite_tools: z.record(name('Composite tool'), z.looseObject({})).default({}),
  hooks: section(),
  registry: section(),
  arango: section(),
  retrieve: section(),
  serve: section(),
});

export type McpkitConfig = z.output<typeof configSchema>;
export type ServerConfig = z.output<typeof serverSchema>;

export function defaultConfig(): McpkitConfig {
  return configSchema.parse({});
}
