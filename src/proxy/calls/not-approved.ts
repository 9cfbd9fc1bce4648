import { ToolError } from '../../core/errors.js';
import type { PinDifference } from '../pins/pins.js';

/** Why something its pins withhold is withheld, in words. */
const REASONS: Readonly<Record<PinDifference, string>> = {
  new: "is new since the server's tools were approved (or they never were)",
  changed: 'changed since it was approved',
  tampered: 'has a pin in the lock file that does not match its own hash (edited by hand?)',
};

/**
 * A call, prompt or read of something its pins withhold (TOOL_NOT_APPROVED): what it is, why it
 * is withheld, and how a person reviews and approves it. `upstreamName`: the server's own name for
 * a tool the view publishes under another.
 */
export function notApprovedError(held: {
  noun: 'tool' | 'prompt' | 'resource';
  name: string;
  server: string;
  why: PinDifference;
  upstreamName?: string;
}): ToolError {
  const what =
    held.noun === 'tool'
      ? `Tool ${held.name} (tool "${held.upstreamName ?? held.name}" of server "${held.server}")`
      : `The ${held.noun} ${held.name} of server "${held.server}"`;
  return new ToolError('TOOL_NOT_APPROVED', `${what} ${REASONS[held.why]}, so it is withheld (tool pinning).`, {
    details: {
      [held.noun]: held.name,
      server: held.server,
      ...(held.upstreamName !== undefined ? { upstream_tool: held.upstreamName } : {}),
      reason: held.why,
    },
    hint: `A person reviews it with "mcpkit server diff ${held.server}" and approves what they saw with "mcpkit server approve ${held.server} --digest DIGEST"; it is then served at once.`,
  });
}
