import type { CallToolResult } from '@modelcontextprotocol/server';
import { accessPath, declarationsAnswer, type DeclaredTool } from '../../code/declarations.js';
import type { DeclarationLimits } from '../../code/declaration-limits.js';

/**
 * Code mode's answer with declarations (search, describe): the .d.ts as text, and what it declares
 * as structured content; within the view's max_answer_bytes, each tool within its
 * max_declaration_bytes (code/declarations.ts). What did not fit is named under `omitted`.
 */
export function declarationsResult(about: Record<string, unknown>, tools: readonly DeclaredTool[], limits?: DeclarationLimits): CallToolResult {
  const answer = tools.length ? declarationsAnswer(tools, limits) : undefined;
  const declarations = answer?.text ?? '// No tool matches; try other words.\n';
  const omitted = answer?.omitted.length ? { omitted: answer.omitted.map((t) => t.published) } : {};
  return {
    content: [{ type: 'text', text: declarations }],
    structuredContent: { ...about, tools: tools.map((t) => ({ name: t.published, call: accessPath(t.group, t.name) })), declarations, ...omitted },
  };
}
