/**
 * TypeScript declarations of a view's tools, as a code-mode script calls them
 * (`tools.SERVER.TOOL(args)`): each tool's parameters with their types and descriptions, and its
 * result type where an outputSchema says it, so a model writes a typed call the first time.
 * Made from the JSON Schemas the tools publish. Pure.
 */

export interface DeclaredTool {
  /** Its group in `tools`: a server, or `mcpkit` for mcpkit's own tools and composites. */
  group: string;
  /** Its name in the group. */
  name: string;
  /** The name the view publishes it under (what a call goes to). */
  published: string;
  description?: string | undefined;
  inputSchema?: unknown;
  outputSchema?: unknown;
}

type Schema = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Deeper than this, a schema is written `unknown` (a recursive $ref, or one nested past reading). */
const MAX_DEPTH = 8;

/** `name`, or `"name"` where it is not an identifier. */
export function memberName(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** How a script reaches a tool: `tools.everything.echo`, or `tools.everything["get-sum"]`. */
export function accessPath(group: string, name: string): string {
  const part = (p: string) => (IDENTIFIER.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`);
  return `tools${part(group)}${part(name)}`;
}

/** A description as JSDoc lines at `indent` (nothing for none); `*\/` in it cannot end the comment. */
function doc(text: string | undefined, indent: string, extra: readonly string[] = []): string {
  const lines = [...(text?.trim() ? text.trim().split(/\r?\n/) : []), ...extra].map((line) => line.replace(/\*\//g, '*\\/').trimEnd());
  if (!lines.length) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line ? ` ${line}` : ''}`).join('\n')}\n${indent} */\n`;
}

/** The TypeScript type a JSON Schema describes, at `indent` (for objects spread over lines). */
export function typeOf(schema: unknown, indent = '', root: unknown = schema, depth = 0, docs = true): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH) return 'unknown';
  const s = schema as Schema;
  const next = (sub: unknown) => typeOf(sub, indent, root, depth + 1, docs);
  if (typeof s.$ref === 'string') return next(resolveRef(root, s.$ref));
  if ('const' in s) return JSON.stringify(s.const) ?? 'unknown';
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v) ?? 'unknown').join(' | ') || 'never';
  for (const key of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[key])) return union((s[key] as unknown[]).map(next));
  if (Array.isArray(s.allOf)) return (s.allOf as unknown[]).map(next).join(' & ') || 'unknown';
  const types = Array.isArray(s.type) ? (s.type as unknown[]) : s.type !== undefined ? [s.type] : s.properties ? ['object'] : s.items ? ['array'] : [];
  if (!types.length) return 'unknown';
  return union(
    types.map((type) => {
      switch (type) {
        case 'string':
          return 'string';
        case 'number':
        case 'integer':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array':
          return arrayOf(s, next);
        case 'object':
          return objectOf(s, indent, root, depth, docs);
        default:
          return 'unknown';
      }
    }),
  );
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.join(' | ') || 'never';
}

function arrayOf(s: Schema, next: (sub: unknown) => string): string {
  if (Array.isArray(s.prefixItems)) return `[${(s.prefixItems as unknown[]).map(next).join(', ')}]`;
  const item = next(s.items);
  return /[|&\s]/.test(item) && !item.startsWith('{') ? `(${item})[]` : `${item}[]`;
}

function objectOf(s: Schema, indent: string, root: unknown, depth: number, docs: boolean): string {
  const properties = (s.properties && typeof s.properties === 'object' ? s.properties : {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const inner = `${indent}  `;
  const members = Object.entries(properties).map(([name, sub]) => {
    const described = sub && typeof sub === 'object' ? (sub as Schema) : {};
    const notes = described.default !== undefined ? [`Default: ${JSON.stringify(described.default)}`] : [];
    const said = docs ? doc(typeof described.description === 'string' ? described.description : undefined, inner, notes) : '';
    return `${said}${inner}${memberName(name)}${required.has(name) ? '' : '?'}: ${typeOf(sub, inner, root, depth + 1, docs)};`;
  });
  const extra = s.additionalProperties;
  if (extra && typeof extra === 'object') members.push(`${inner}[key: string]: ${typeOf(extra, inner, root, depth + 1, docs)};`);
  else if (!members.length && extra !== false) return 'Record<string, unknown>';
  return members.length ? `{\n${members.join('\n')}\n${indent}}` : '{}';
}

/** A local `$ref` (`#/$defs/X`, `#/definitions/X`); anything else is unknown. */
function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    if (!at || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return at;
}

/** One tool as a member of its group: its description, its parameters, what its promise gives. */
export function toolMember(tool: DeclaredTool, indent = ''): string {
  // A result's fields without their descriptions: they mostly repeat the parameters'.
  const returns = tool.outputSchema !== undefined ? typeOf(tool.outputSchema, indent, tool.outputSchema, 0, false) : 'unknown';
  const input = tool.inputSchema !== undefined ? typeOf(tool.inputSchema, indent) : 'Record<string, unknown>';
  const optional = !hasRequired(tool.inputSchema);
  return `${doc(tool.description, indent)}${indent}${memberName(tool.name)}(args${optional ? '?' : ''}: ${input}): Promise<${returns}>;`;
}

function hasRequired(schema: unknown): boolean {
  return Boolean(schema && typeof schema === 'object' && Array.isArray((schema as Schema).required) && ((schema as Schema).required as unknown[]).length);
}

/** Said once where some tool declares no result type. */
const UNTYPED = '// A tool without a result type gives its text (a string), or its structured content where it has some.\n';

/** The declaration of `tools` with these tools, grouped as a script reaches them. */
export function declarationsOf(tools: readonly DeclaredTool[]): string {
  const groups = new Map<string, DeclaredTool[]>();
  for (const tool of tools) groups.set(tool.group, [...(groups.get(tool.group) ?? []), tool]);
  const body = [...groups].map(([group, members]) => `  ${memberName(group)}: {\n${members.map((m) => toolMember(m, '    ')).join('\n')}\n  };`);
  const note = tools.some((t) => t.outputSchema === undefined) ? UNTYPED : '';
  return `${note}declare const tools: {\n${body.join('\n')}\n};\n`;
}
