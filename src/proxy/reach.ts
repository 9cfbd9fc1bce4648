import { ToolError } from '../core/errors.js';
import type { PromptResourceRouter } from './prompts-resources.js';

/** What a request names besides a tool: a prompt, a resource (by URI) or a template (by URI template). */
export type ReachTarget = { prompt: string } | { uri: string } | { template: string };

/**
 * The one check every request for a prompt, a resource or a template takes, whatever the method
 * (prompts/get, resources/read, resources/subscribe, completion/complete, subscriptions/listen),
 * in both eras, as a listing judges the same item: the client's rules must allow the name the view
 * shows it under (they only read). Tools go through the call chain's own check.
 *
 * `shown`: the view shows it and the rules allow it. `refused`: the view shows it, the rules do not
 * (answered as not found, so its existence is not told). `unknown`: the view shows nothing so
 * named; the request's own work says why (not found, or withheld by the pins), and what only
 * subscribes (listen) refuses it.
 */
export async function reach(
  router: PromptResourceRouter,
  allows: ((tool: { name: string; readOnly: boolean }) => boolean) | undefined,
  target: ReachTarget,
): Promise<'shown' | 'refused' | 'unknown'> {
  const name = await router.shownName(target);
  if (name === undefined) return 'unknown';
  return allows === undefined || allows({ name, readOnly: true }) ? 'shown' : 'refused';
}

/** NOT_FOUND for what a client's rules keep from it: the same words as for what does not exist. */
export function notShown(target: ReachTarget): ToolError {
  if ('prompt' in target) return new ToolError('NOT_FOUND', `Unknown prompt: ${target.prompt}.`, { hint: 'Call prompts/list for the available prompts.' });
  if ('uri' in target)
    return new ToolError('NOT_FOUND', `Resource not found: ${target.uri}.`, {
      details: { uri: target.uri },
      hint: 'Call resources/list and resources/templates/list for what this view offers.',
    });
  return new ToolError('NOT_FOUND', `No resource template ${target.template}.`, { hint: 'Call resources/templates/list for the available templates.' });
}

/** Refuses what the rules keep from the client; lets the rest through to the request's own work. */
export async function requireReach(
  router: PromptResourceRouter,
  allows: ((tool: { name: string; readOnly: boolean }) => boolean) | undefined,
  target: ReachTarget,
): Promise<void> {
  if ((await reach(router, allows, target)) === 'refused') throw notShown(target);
}
