/**
 * Why a tools/call result cannot be passed on, or undefined when it can. An upstream may be
 * broken or hostile: a result that is not a CallToolResult (content that is not a list of
 * blocks, a structuredContent that is not an object) would break the client that gets it, so the
 * call ends with an error naming the server instead. Checked on every path, the hot one too, so
 * this is a structural look, not a schema parse: unknown block types and extra fields pass, as
 * later revisions of the protocol may add them. An input_required result (2026-07-28) is the
 * client's to read. Pure.
 */
export function malformedCallResult(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return `the result is ${describe(result)}, not an object`;
  const r = result as { content?: unknown; structuredContent?: unknown; isError?: unknown; resultType?: unknown };
  if (r.resultType !== undefined && r.resultType !== 'complete') return undefined;
  if (r.content !== undefined) {
    if (!Array.isArray(r.content)) return `its content is ${describe(r.content)}, not a list of content blocks`;
    for (let i = 0; i < r.content.length; i++) {
      const block = r.content[i] as { type?: unknown } | null;
      if (typeof block !== 'object' || block === null || Array.isArray(block)) return `content[${i}] is ${describe(block)}, not a content block`;
      if (typeof block.type !== 'string') return `content[${i}] has no type`;
    }
  }
  if (r.structuredContent !== undefined && (typeof r.structuredContent !== 'object' || r.structuredContent === null || Array.isArray(r.structuredContent)))
    return `its structuredContent is ${describe(r.structuredContent)}, not an object`;
  if (r.isError !== undefined && typeof r.isError !== 'boolean') return `its isError is ${describe(r.isError)}, not true or false`;
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'a string';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
