import { escapeInvisible } from '../../core/invisible.js';

/** `"a"`, `"a" and "b"`, `"a", "b" and "c"`: names quoted, as a sentence lists them. Pure. */
export function quotedList(names: readonly string[]): string {
  const quoted = names.map((n) => `"${escapeInvisible(n)}"`);
  return quoted.length < 2 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
}

/** The name-collision finding in a sentence: which servers offer the one tool name. Pure. */
export function sameNameText(tool: string, servers: readonly string[]): string {
  const distinct = [...new Set(servers)];
  return `Servers ${quotedList(distinct)} ${distinct.length > 2 ? 'all' : 'both'} offer a tool named "${escapeInvisible(tool)}".`;
}

/** The confusable-name finding in a sentence: the tool names it reads like, each with its server. Pure. */
export function readsLikeText(tool: string, like: readonly { tool: string; server: string }[]): string {
  return `"${escapeInvisible(tool)}" reads like ${like.map((o) => `"${escapeInvisible(o.tool)}" of ${o.server}`).join(', ')}.`;
}
