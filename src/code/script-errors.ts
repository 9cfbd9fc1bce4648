import { isErrorCode, ToolError } from '../core/errors.js';
import type { CodeLimits } from './limits.js';
import type { CallFailure, RunFailure } from './protocol.js';

/**
 * The error a run that ended inside the engine ends with (./sandbox.ts): each limit names its
 * setting; a script's own error says where in the script as written it was thrown (line and
 * column, no frame of mcpkit's wrapper), and is cut to max_output_bytes like any output; a host's
 * failure the script did not catch (a tool call's, sleep's) keeps its code, details and hint.
 * Pure.
 */
export interface EngineFailure {
  kind: RunFailure;
  message: string;
  logs: string[];
  stack?: string | undefined;
  own?: CallFailure | undefined;
}

export interface FailureContext {
  limits: CodeLimits;
  /** The setting that sets a limit, as the caller names it. */
  named(limit: keyof CodeLimits): string;
  calls: number;
  /** The place in the script as written of a place in the engine's JavaScript (./strip-types.ts). */
  placeOf(line: number, column: number): { line: number; column: number } | undefined;
}

/** The smallest room a script's error keeps, however much the script printed before it. */
const MIN_ERROR_BYTES = 1024;

/** `text` cut to at most `max` bytes of UTF-8 (never inside a character), saying so. */
export function clipBytes(text: string, max: number, setting: string): string {
  if (Buffer.byteLength(text) <= max) return text;
  const note = ` ... [cut at ${max} bytes: ${setting}]`;
  let cut = Buffer.from(text)
    .subarray(0, Math.max(0, max - Buffer.byteLength(note)))
    .toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return cut + note;
}

/**
 * A stack's frames in the script as written: `script.js:N:C` of the engine's JavaScript (the
 * wrapper adds a line above the script) mapped back; frames outside the script (the wrapper's
 * call, the bootstrap's) dropped. The first place is where the error was thrown.
 */
export function scriptFrames(stack: string, placeOf: FailureContext['placeOf']): { frames: string[]; first?: { line: number; column: number } } {
  const frames: string[] = [];
  let first: { line: number; column: number } | undefined;
  for (const frame of stack.split('\n')) {
    const at = /^\s*at (?:(.*?) \()?script\.js:(\d+):(\d+)\)?\s*$/.exec(frame);
    const place = at ? placeOf(Number(at[2]) - 1, Number(at[3])) : undefined;
    if (!place) continue;
    first ??= place;
    frames.push(`    at ${at![1] ?? '<script>'} (script.js:${place.line}:${place.column})`);
  }
  return { frames, ...(first ? { first } : {}) };
}

export function engineFailure(failure: EngineFailure, context: FailureContext): ToolError {
  const { limits, named, calls } = context;
  const { kind, logs } = failure;
  const details = { calls, ...(logs.length ? { logs } : {}) };
  switch (kind) {
    case 'memory':
      return new ToolError('SCRIPT_LIMIT', `The script used more than its ${limits.memoryMb} MB of memory (${named('memoryMb')}).`, {
        details: { ...details, memory_mb: limits.memoryMb },
        hint: `Keep less in memory at once, or raise ${named('memoryMb')}.`,
      });
    case 'interrupted':
      return new ToolError('TIMEOUT', `The script ran past its ${limits.timeoutMs} ms (${named('timeoutMs')}).`, {
        details: { ...details, timeout_ms: limits.timeoutMs },
        hint: `Do less in one run, or raise ${named('timeoutMs')}.`,
      });
    case 'output':
      return new ToolError('SCRIPT_LIMIT', `The script's output is too large: ${failure.message} (${named('maxOutputBytes')}).`, {
        details: { ...details, max_output_bytes: limits.maxOutputBytes },
        hint: `Return or print less (a summary, a count), or raise ${named('maxOutputBytes')}.`,
      });
    case 'syntax':
    case 'error':
      return scriptError(failure, context, details);
  }
}

/** A script that threw, or does not parse: where, in its own lines, within what it may print. */
function scriptError(failure: EngineFailure, context: FailureContext, details: Record<string, unknown>): ToolError {
  const { frames, first } = failure.stack ? scriptFrames(failure.stack, context.placeOf) : { frames: [] };
  const room = Math.max(MIN_ERROR_BYTES, context.limits.maxOutputBytes - logBytes(failure.logs));
  const where = first ? { line: first.line, column: first.column } : {};
  if (failure.kind === 'syntax') {
    const at = first ? ` (line ${first.line}, column ${first.column})` : '';
    return new ToolError('SCRIPT_ERROR', clipBytes(`The script does not parse: ${failure.message}${at}.`, room, context.named('maxOutputBytes')), {
      details: { ...details, ...where },
      hint: 'Fix the syntax; the script is the body of an async function.',
    });
  }
  const text = clipBytes(`The script failed: ${failure.message}${frames.length ? `\n${frames.join('\n')}` : ''}`, room, context.named('maxOutputBytes'));
  const own = failure.own;
  if (!own || !isErrorCode(own.code)) return new ToolError('SCRIPT_ERROR', text, { details: { ...details, ...where } });
  // A tool call's (or sleep's) failure the script did not catch: its own code, details and hint.
  return new ToolError(own.code, text, {
    details: { ...boundedDetails(own.details, room), ...details, ...where },
    ...(own.hint ? { hint: clipBytes(own.hint, MIN_ERROR_BYTES, context.named('maxOutputBytes')) } : {}),
  });
}

const logBytes = (logs: readonly string[]) => logs.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);

/** A host failure's details, when they fit the room (they are mcpkit's own, and small); else none. */
function boundedDetails(details: Record<string, unknown> | undefined, room: number): Record<string, unknown> {
  if (!details || typeof details !== 'object') return {};
  return Buffer.byteLength(JSON.stringify(details)) <= room ? details : {};
}
