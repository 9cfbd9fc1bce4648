import { madeOnce } from './declaration-cache.js';
import { DECLARATION_DEFAULTS, WALK_BOUNDS, type DeclarationLimits } from './declaration-limits.js';
import { budgetOf, clipped, commentSafe, doc, memberName, typeOf } from './schema-type.js';

/**
 * TypeScript declarations of a view's tools, as a code-mode script calls them
 * (`tools.SERVER.TOOL(args)`): each tool's parameters with their types and descriptions, and its
 * result type where an outputSchema says it, so a model writes a typed call the first time.
 * Made from the JSON Schemas the tools publish, each within `max_declaration_bytes` and a bounded
 * walk (./schema-type.ts), and an answer within `max_answer_bytes`. Pure.
 */

export { memberName, typeOf } from './schema-type.js';

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
  /** What stands for this definition while it holds (its catalog entry): its declaration is made once for it (./declaration-cache.ts). */
  anchor?: object;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** How a script reaches a tool: `tools.everything.echo`, or `tools.everything["get-sum"]`. */
export function accessPath(group: string, name: string): string {
  const part = (p: string) => (IDENTIFIER.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`);
  return `tools${part(group)}${part(name)}`;
}

/**
 * Room kept out of a declaration's walk for what is written after the budget is spent: a note for
 * each container still open (at most the depth), and the line that says the schema was cut.
 */
const RESERVE = 2_500;

/**
 * One tool as a member of its group: its description, its parameters, what its promise gives; at
 * most `cap` bytes. `work.nodes` is told the schemas a walk visited (nothing when it was made before).
 */
export function toolMember(tool: DeclaredTool, indent = '', cap = DECLARATION_DEFAULTS.maxDeclarationBytes, work?: { nodes: number }): string {
  return madeOnce(tool.anchor, `${indent.length}:${cap}`, () => {
    const written = writeMember(tool, indent, cap, work);
    return Buffer.byteLength(written) <= cap ? written : cutMember(tool, indent, cap);
  });
}

function writeMember(tool: DeclaredTool, indent: string, cap: number, work?: { nodes: number }): string {
  const budget = budgetOf(cap - Math.min(RESERVE, Math.floor(cap / 4)), cap);
  const description = clipped(tool.description, budget);
  // The parameters first: a model needs them more than the result's shape.
  const input = tool.inputSchema !== undefined ? typeOf(tool.inputSchema, { indent, budget }) : 'Record<string, unknown>';
  // A result's fields without their descriptions: they mostly repeat the parameters'.
  const returns = tool.outputSchema !== undefined ? typeOf(tool.outputSchema, { indent, budget, docs: false }) : 'unknown';
  if (work) work.nodes += WALK_BOUNDS.maxNodes - budget.nodes;
  const cut = budget.cuts.size ? [`Its schema is cut where a comment says so (${[...budget.cuts].join(', ')}).`] : [];
  const optional = !hasRequired(tool.inputSchema);
  return `${doc(description, indent, cut)}${indent}${memberName(tool.name)}(args${optional ? '?' : ''}: ${input}): Promise<${returns}>;`;
}

/** A tool whose declaration did not fit even so: its name and a note, with what fits of its description. */
function cutMember(tool: DeclaredTool, indent: string, cap: number): string {
  const tail = `${indent}${memberName(tool.name)}(args?: Record<string, unknown>): Promise<unknown>; /* cut: its schema is over max_declaration_bytes (${cap}) */`;
  const room = cap - Buffer.byteLength(tail) - indent.length * 2 - 16;
  const description = tool.description && room > 0 ? doc(tool.description.slice(0, Math.floor(room / 3)), indent) : '';
  return Buffer.byteLength(description + tail) <= cap ? description + tail : tail;
}

function hasRequired(schema: unknown): boolean {
  const required = schema && typeof schema === 'object' ? (schema as Record<string, unknown>).required : undefined;
  return Array.isArray(required) && required.length > 0;
}

/** Said once where some tool declares no result type. */
const UNTYPED = '// A tool without a result type gives its text (a string), or its structured content where it has some.\n';

const MEMBER_INDENT = '    ';

/** The declaration of `tools` with these members, grouped as a script reaches them. */
function assemble(members: readonly { tool: DeclaredTool; text: string }[], after = ''): string {
  const groups = new Map<string, string[]>();
  for (const { tool, text } of members) groups.set(tool.group, [...(groups.get(tool.group) ?? []), text]);
  const body = [...groups].map(([group, texts]) => `  ${memberName(group)}: {\n${texts.join('\n')}\n  };`);
  const note = members.some((m) => m.tool.outputSchema === undefined) ? UNTYPED : '';
  return `${note}declare const tools: {\n${body.join('\n')}\n};\n${after}`;
}

/** The declaration of `tools` with these tools (`mcpkit code types`: every tool, each within its cap). */
export function declarationsOf(tools: readonly DeclaredTool[], limits: DeclarationLimits = DECLARATION_DEFAULTS): string {
  return assemble(tools.map((tool) => ({ tool, text: toolMember(tool, MEMBER_INDENT, limits.maxDeclarationBytes) })));
}

/** A search's or a describe's declarations, within `max_answer_bytes`: the tools that do not fit are named after them. */
export interface DeclarationsAnswer {
  text: string;
  declared: DeclaredTool[];
  omitted: DeclaredTool[];
}

/** Room of an answer that is not its members: the header, the groups' lines, the note that names what was left out. */
const FRAME = 1_500;
/**
 * Schemas one answer may visit in its walks: a search of 50 tools each made to spend its whole walk
 * would hold serve's thread 50 times as long. The tools past it are named, and declared by the
 * next answers (what was made is kept); an ordinary tool visits tens of schemas.
 */
const ANSWER_NODES = 10 * WALK_BOUNDS.maxNodes;

export function declarationsAnswer(tools: readonly DeclaredTool[], limits: DeclarationLimits = DECLARATION_DEFAULTS): DeclarationsAnswer {
  const cap = Math.max(1_000, Math.min(limits.maxDeclarationBytes, limits.maxAnswerBytes - FRAME));
  const members: { tool: DeclaredTool; text: string }[] = [];
  const omitted: DeclaredTool[] = [];
  let room = limits.maxAnswerBytes - FRAME;
  const work = { nodes: 0 };
  for (const tool of tools) {
    if (work.nodes >= ANSWER_NODES) {
      omitted.push(tool);
      continue;
    }
    const text = toolMember(tool, MEMBER_INDENT, cap, work);
    const size = Buffer.byteLength(text) + Buffer.byteLength(tool.group) + 12;
    if (size > room) {
      omitted.push(tool);
      continue;
    }
    members.push({ tool, text });
    room -= size;
  }
  let text = assemble(members, omittedNote(omitted, limits.maxAnswerBytes));
  // The frame is an estimate: what it missed is paid by the last tools declared.
  while (Buffer.byteLength(text) > limits.maxAnswerBytes && members.length) {
    omitted.unshift(members.pop()!.tool);
    text = assemble(members, omittedNote(omitted, limits.maxAnswerBytes));
  }
  return { text, declared: members.map((m) => m.tool), omitted };
}

function omittedNote(omitted: readonly DeclaredTool[], cap: number): string {
  if (!omitted.length) return '';
  const named = omitted.slice(0, 10).map((t) => commentSafe(JSON.stringify(t.published.slice(0, 64))));
  const more = omitted.length > 10 ? `, and ${omitted.length - 10} more` : '';
  return `// Not declared here, past max_answer_bytes (${cap}) or the work of one answer: ${named.join(', ')}${more}. Describe one at a time by its name.\n`;
}
