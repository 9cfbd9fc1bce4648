/** One argument of a tool's input schema, as `mcpkit tools NAME` prints it. */
// A type, not an interface: a table row is a Record.
export type ToolArgument = {
  argument: string;
  type: string;
  required: 'yes' | 'no';
  default: string;
  description: string;
};

interface SchemaNode {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
}

/** The arguments of an input schema in its own order, each with a type a person reads ("string | string[]"). Pure. */
export function toolArguments(schema: unknown): ToolArgument[] {
  const root = (schema ?? {}) as { properties?: Record<string, SchemaNode>; required?: string[] };
  const required = new Set(root.required ?? []);
  return Object.entries(root.properties ?? {}).map(([argument, node]) => ({
    argument,
    type: typeOf(node) + range(node),
    required: required.has(argument) ? 'yes' : 'no',
    default: node.default === undefined ? '' : JSON.stringify(node.default),
    description: node.description ?? '',
  }));
}

function typeOf(node: SchemaNode | undefined): string {
  if (!node) return 'any';
  if (node.enum) return node.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (node.const !== undefined) return JSON.stringify(node.const);
  const alternatives = node.anyOf ?? node.oneOf;
  if (alternatives) return alternatives.map(typeOf).join(' | ');
  const types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : [];
  if (types.length === 0) return 'any';
  return types.map((t) => (t === 'array' ? `${typeOf(node.items)}[]` : t)).join(' | ');
}

function range(node: SchemaNode): string {
  if (node.minimum === undefined && node.maximum === undefined) return '';
  return ` (${node.minimum ?? ''}..${node.maximum ?? ''})`;
}
