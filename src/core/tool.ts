import type { z } from 'zod';
import type { ConfigSource } from '../config/locate.js';
import type { McpkitConfig } from '../config/schema.js';
import type { Logger } from './logger.js';

/** MCP tool annotations (spec: ToolAnnotations). Every tool states all four. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A tool that only reads local state (config, files): safe to call any number of times. */
export const LOCAL_READ_ONLY: ToolAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

export interface CommandSpec {
  /** `topic verb` as typed in a terminal, e.g. `config show`. */
  id: string;
  /** Input fields taken as positional arguments, in order. The last may be an array (rest of argv). */
  args?: readonly string[];
  /** Flag names that differ from the kebab-cased field, e.g. `{ args: 'arg' }` for `--arg A --arg B`. */
  flagNames?: Readonly<Record<string, string>>;
  /** One-letter flag aliases, e.g. `{ limit: 'n' }`. */
  chars?: Readonly<Record<string, string>>;
  /** Shell lines shown under EXAMPLES in `--help`; `<%= config.bin %>` stands for `mcpkit`. */
  examples: readonly string[];
}

export type Surface = 'cli' | 'mcp';

export interface ToolContext {
  /** The loaded, interpolated and validated config (defaults when no file exists). Loaded once, on first use. */
  config(): Promise<McpkitConfig>;
  /** Where the config lives (or would live) and which rule chose it. */
  readonly configLocation: ConfigSource;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly logger: Logger;
  readonly surface: Surface;
  now(): Date;
  readonly signal?: AbortSignal;
  /** Set by the MCP front end when the client asked for progress (a progressToken). */
  readonly progress?: (update: { progress: number; total?: number; message?: string }) => void;
  /**
   * Caches that live as long as a long-running process (`serve`), keyed by their owner; absent in
   * one-shot CLI runs, where a cache would only cost time to build.
   */
  readonly processCache?: Map<string, unknown>;
}

/**
 * What a long-running process keeps under `key`, made on first use; undefined in one-shot runs,
 * which have no processCache. The value is stored before `make` settles (a promise, when it is
 * asynchronous), so calls arriving together share one.
 */
export function perProcess<T>(ctx: Pick<ToolContext, 'processCache'>, key: string, make: () => T): T | undefined {
  const cache = ctx.processCache;
  if (!cache) return undefined;
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key) as T;
}

export interface RenderUi {
  /** Colour helpers; plain strings when colour is off (NO_COLOR, not a TTY). */
  readonly color: import('chalk').ChalkInstance;
  table(rows: readonly Record<string, unknown>[], columns?: readonly string[]): string;
}

export interface ToolDefinition<S extends z.ZodObject = z.ZodObject, R = unknown> {
  /** snake_case, the MCP name. */
  name: string;
  group: string;
  command: CommandSpec;
  title: string;
  /** First line is the summary shown by `tools` and in `--help`. */
  description: string;
  input: S;
  annotations: ToolAnnotations;
  run(input: z.output<S>, ctx: ToolContext): Promise<R>;
  /** The code for arguments that fail the schema (the arango seed's VALIDATION_ERROR); INVALID_INPUT otherwise. */
  invalidInputCode?: string;
  /**
   * Whether MCP clients are offered the tool under this config (admin tools are opt-in); absent
   * means always. The terminal command always exists and may refuse with a hint instead.
   */
  available?(config: McpkitConfig, env: NodeJS.ProcessEnv): boolean;
  /** Human output for the terminal; without it the CLI prints a generic table or key/value list. */
  render?(result: R, ui: RenderUi, input: z.output<S>): string | Promise<string>;
}

export type AnyTool = ToolDefinition<z.ZodObject, any>;

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const COMMAND_ID = /^[a-z][a-z0-9-]*( [a-z][a-z0-9-]*)+$/;

/** Checks the static parts of a definition at import time so a typo fails the build, not a user. */
export function defineTool<S extends z.ZodObject, R>(tool: ToolDefinition<S, R>): ToolDefinition<S, R> {
  if (!SNAKE.test(tool.name)) throw new Error(`Tool name "${tool.name}" must be snake_case (the MCP name).`);
  if (!COMMAND_ID.test(tool.command.id)) throw new Error(`Tool ${tool.name}: command id "${tool.command.id}" must look like "topic verb".`);
  if (tool.command.examples.length === 0) throw new Error(`Tool ${tool.name}: give at least one example for --help.`);
  const shape = tool.input.shape as Record<string, unknown>;
  for (const arg of tool.command.args ?? []) {
    if (!(arg in shape)) throw new Error(`Tool ${tool.name}: positional argument "${arg}" is not an input field.`);
  }
  for (const field of Object.keys({ ...tool.command.flagNames, ...tool.command.chars })) {
    if (!(field in shape)) throw new Error(`Tool ${tool.name}: flag setting for "${field}", which is not an input field.`);
  }
  return tool;
}

/** The oclif command id (`config:show`) for a spaced id (`config show`). */
export function oclifId(commandId: string): string {
  return commandId.split(' ').join(':');
}

/** The first line of a description (ours or an upstream tool's), for listings and help summaries. */
export function summaryOf(tool: { description?: string }): string {
  return (tool.description ?? '').split('\n', 1)[0]!.trim();
}
