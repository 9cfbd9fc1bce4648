// SEP-2243 (2026-07-28 Streamable HTTP, "Custom Headers"): a tool may mark parameters of its
// inputSchema with `x-mcp-header: Name`; a client then mirrors each such argument into an
// `Mcp-Param-Name` header, and a server MUST refuse (-32020, HTTP 400) a call whose header is
// missing, badly encoded or says something else than the body. Gateways route on these headers,
// so mcpkit checks a client's against the tool as it publishes it before passing the call on, and
// makes the upstream's from the arguments it sends (a pre_call hook may have changed them).
//
// Written here, not taken from the SDK: its server package has the check only inside McpServer's
// own HTTP entry, and its client package the headers only inside callTool; neither exports them.
// The rules below follow the spec's text and the SDK's reading of it (the same cases, the same
// encoding, the same error shape).

/** One `x-mcp-header` parameter: where its value sits in the arguments, and its header's name. */
export interface ParamHeaderDeclaration {
  path: readonly string[];
  headerName: string;
  type: string;
}

/** Why a call is refused: the JSON-RPC error's message and its `data.mismatch`. */
export interface ParamHeaderMismatch {
  header: string;
  message: string;
  body: string;
}

/** JSON-RPC's HeaderMismatch code (2026-07-28). */
export const HEADER_MISMATCH = -32020;

const ANNOTATION = 'x-mcp-header';
/** RFC 9110 `token`: no spaces, controls or delimiters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** `number` is not permitted by the spec, but a server still checks such a header (as the SDK does). */
const HEADER_TYPES = new Set(['string', 'integer', 'boolean', 'number']);
/** Keywords whose subschemas are not "statically reachable through properties": an annotation there makes the tool invalid. */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
/** Of those, the ones whose value maps names to subschemas. */
const NAMED_SUBSCHEMAS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

/**
 * The `x-mcp-header` parameters of a tool's inputSchema. Undefined when an annotation breaks the
 * spec's rules (not a string token, not on a primitive, not unique, or where `properties` alone
 * cannot reach): such a tool is invalid, and its headers are not held against a call.
 */
export function paramHeaderDeclarations(inputSchema: unknown): ParamHeaderDeclaration[] | undefined {
  const found: ParamHeaderDeclaration[] = [];
  const names = new Set<string>();
  const visit = (node: unknown, path: string[], reachable: boolean): boolean => {
    if (node === null || typeof node !== 'object') return true;
    const schema = node as Record<string, unknown>;
    if (ANNOTATION in schema) {
      const name = schema[ANNOTATION];
      const type = schema.type;
      if (!reachable || path.length === 0 || typeof name !== 'string' || !TOKEN.test(name)) return false;
      if (typeof type !== 'string' || !HEADER_TYPES.has(type) || names.has(name.toLowerCase())) return false;
      names.add(name.toLowerCase());
      found.push({ path, headerName: name, type });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) if (!visit(child, [...path, key], reachable)) return false;
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : NAMED_SUBSCHEMAS.has(keyword) && sub !== null && typeof sub === 'object' ? Object.values(sub) : [sub];
      for (const branch of branches) if (!visit(branch, [...path, `<${keyword}>`], false)) return false;
    }
    return true;
  };
  return visit(inputSchema, [], true) ? found : undefined;
}

const SENTINEL_START = '=?base64?';
const SENTINEL_END = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** A header's value: `=?base64?...?=` decoded as UTF-8, anything else as it is; undefined when the Base64 or its UTF-8 is not valid. */
export function decodeParamValue(value: string): string | undefined {
  if (!value.startsWith(SENTINEL_START) || !value.endsWith(SENTINEL_END)) return value;
  const base64 = value.slice(SENTINEL_START.length, value.length - SENTINEL_END.length);
  if (!CANONICAL_BASE64.test(base64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(base64, 'base64'));
  } catch {
    return undefined;
  }
}

/**
 * A header's value for a text: as it is when it is a plain ASCII field value, else UTF-8 in
 * Base64 behind the sentinel (empty, outside 0x20-0x7E and tab, spaces at either end that field
 * parsing would strip, or a text that looks like the sentinel itself).
 */
export function encodeParamValue(text: string): string {
  const plain = text.length > 0 && !(text.startsWith(SENTINEL_START) && text.endsWith(SENTINEL_END)) && text === text.trim() && /^[\t\x20-\x7e]*$/.test(text);
  return plain ? text : `${SENTINEL_START}${Buffer.from(text, 'utf8').toString('base64')}${SENTINEL_END}`;
}

/** The Mcp-Param-* headers a call with these arguments carries: none for an absent or null argument. */
export function paramHeadersFor(declarations: readonly ParamHeaderDeclaration[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const declaration of declarations) {
    const value = valueAt(args, declaration.path);
    const text = value === undefined || value === null ? undefined : headerText(value);
    if (text !== undefined) headers[`Mcp-Param-${declaration.headerName}`] = encodeParamValue(text);
  }
  return headers;
}

/** An argument as its header carries it; undefined for a value no header is made for. */
function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  return undefined;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * The first declared parameter whose header disagrees with the call's arguments. An argument that
 * is absent or null needs no header (one sent anyway is ignored); numbers compare as numbers (42
 * and 42.0 agree), everything else as text. `header` reads a request header by its lower-case name.
 */
export function paramHeaderMismatch(
  declarations: readonly ParamHeaderDeclaration[],
  args: unknown,
  header: (lowerCaseName: string) => string | undefined,
): ParamHeaderMismatch | undefined {
  for (const declaration of declarations) {
    const value = valueAt(args, declaration.path);
    if (value === undefined || value === null) continue;
    const expected = headerText(value);
    if (expected === undefined) continue;
    const name = `Mcp-Param-${declaration.headerName}`;
    const where = declaration.path.join('.');
    const sent = header(name.toLowerCase());
    if (sent === undefined) return mismatch(name, `the body carries ${where}=${JSON.stringify(value)} but the ${name} header is absent`);
    const decoded = decodeParamValue(sent);
    if (decoded === undefined) return mismatch(name, `the ${name} header carries an invalid Base64 sentinel value`);
    const numeric = (declaration.type === 'integer' || declaration.type === 'number') && typeof value === 'number' && DECIMAL.test(decoded);
    if (numeric ? Number(decoded) !== value : decoded !== expected) {
      return mismatch(name, `the ${name} header decodes to ${JSON.stringify(decoded)} but the body carries ${where}=${JSON.stringify(value)}`);
    }
  }
  return undefined;
}

function mismatch(header: string, body: string): ParamHeaderMismatch {
  return { header, body, message: `Bad Request: the request headers and body disagree: ${body}` };
}
