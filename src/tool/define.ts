import type { z } from 'zod';
import type { ErrorCode } from '../core/errors.js';
import type { McpkitConfig } from '../config/schema/schema.js';
import type { RenderUi, ToolContext } from './context.js';

/** MCP tool annotations (spec: ToolAnnotations). Every tool states all four. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Reads local state only (config, files, a database): safe to call any number of times. */
export const READ_ONLY: ToolAnnotations = Object.freeze({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });

/** Changes the local config file only; never reaches the network. */
export const CONFIG_WRITE: ToolAnnotations = Object.freeze({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });

/**
 * A tool no MCP client is offered (`applyPolicy` leaves it out): a terminal command only, for what
 * a person decides or reads (approving, scanning and logging in to servers; composites and hooks),
 * which an agent must not do for itself.
 */
export const TERMINAL_ONLY_TOOL = { available: () => false } as const;

export interface CommandSpec {
  /** `topic verb` as typed in a terminal, e.g. `config show`. */
  id: string;
  /** Input fields taken as positional arguments, in order. The last may be an array (rest of argv). */
  args?: readonly string[];
  /** Flag names that differ from the kebab-cased field, e.g. `{ args: 'arg' }` for `--arg A --arg B`. */
  flagNames?: Readonly<Record<string, string>>;
  /** One-letter flag aliases, e.g. `{ limit: 'n' }`. */
  chars?: Readonly<Record<string, string>>;
  /**
   * Object fields of string values (`env`, `headers`) given in a terminal as repeatable KEY=VALUE
   * flags, e.g. `--env A=1 --env B=2`; over MCP they are plain objects.
   */
  pairs?: readonly string[];
  /**
   * Fields the words after `--` fill in a terminal: the first word the first field, the rest the
   * second (an array), as in `server add memory -- npx -y @modelcontextprotocol/server-memory`.
   */
  afterDoubleDash?: readonly [string, string];
  /**
   * The field a lone URL after the arguments fills, as `claude mcp add NAME URL` writes it
   * (`server add linear https://mcp.linear.app/mcp`); any other word there is refused.
   */
  urlWord?: string;
  /** Other ids the command answers to, as typed (`server ls`), for the habits of other CLIs. */
  aliases?: readonly string[];
  /** Shell lines shown under EXAMPLES in `--help`; `<%= config.bin %>` stands for `mcpkit`. */
  examples: readonly string[];
  /**
   * Terminal flags taken from another tool's habits (rg's -n and -F) that change nothing here,
   * each with why; `conflicts`: a boolean field it contradicts (-F with --regex), refused together.
   */
  habits?: Readonly<Record<string, Habit>>;
}

export interface Habit {
  char?: string;
  description: string;
  conflicts?: string;
}

/** `S` is the input schema, `R` the result, `I` an item of the result printed as it is found (renderItem). */
export interface ToolDefinition<S extends z.ZodObject = z.ZodObject, R = unknown, I = unknown> {
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
  /**
   * The code for arguments that fail the schema; INVALID_INPUT otherwise. The arango tools keep
   * VALIDATION_ERROR, the name scripts and agents written for the ArangoDB tool set they came from
   * match on; it is one of the closed codes (core/errors.ts), so both front ends map it as usual.
   */
  invalidInputCode?: ErrorCode;
  /** Fields whose problems have a code of their own (retrieve: `limit` -> LIMIT_INVALID). */
  fieldCodes?: Readonly<Record<string, ErrorCode>>;
  /**
   * A writer that refuses to write by itself when `ctx.policy.readOnly` is set (arango_query checks
   * its AQL). The read-only policy keeps such a tool and publishes it with `readOnlyHint: true`;
   * every other writer is left out.
   */
  enforcesReadOnly?: boolean;
  /**
   * A config writer that reads the config before its edit and may create the file: in a terminal
   * it runs with built-in defaults when a file named by --config or MCPKIT_CONFIG does not exist
   * yet (every other command refuses a missing named file with CONFIG_NOT_FOUND).
   */
  createsConfig?: boolean;
  /**
   * It gains from a warm process (upstream connections, the file index): the terminal runs it in
   * `mcpkit daemon` when one runs for its config, and prints the same.
   */
  warm?: boolean;
  /**
   * What the tool does to this machine beyond reading: writes the config file, or starts
   * processes (a server's command). Such tools are not offered over HTTP without authentication
   * (Policy.hostTools), since a web page could otherwise plant and run a command.
   */
  hostAccess?: 'config' | 'processes';
  /**
   * Whether MCP clients are offered the tool under this config (admin tools are opt-in); absent
   * means always. The terminal command always exists and may refuse with a hint instead.
   */
  available?(config: McpkitConfig, env: NodeJS.ProcessEnv): boolean;
  /**
   * A read tool agents reach for most: under exposure auto, a view over its token budget keeps
   * featured tools listed while they fit, lowest rank first (an agent finds the rest through search).
   */
  featured?: number;
  /** Whether `featured` holds under this config (arango_query: only where an ArangoDB is named); absent means always. */
  featuredIf?(config: McpkitConfig, env: NodeJS.ProcessEnv): boolean;
  /** A result that is not a failure but ends the command with this exit code (server diff: 1 when anything differs, for CI). */
  exitCode?(result: R): number;
  /** Human output for the terminal; without it the CLI prints a generic table or key/value list. */
  render?(result: R, ui: RenderUi, input: z.output<S>): string | Promise<string>;
  /** One item of a result the terminal prints as it is found (ToolContext.emit), e.g. a search match. */
  renderItem?(item: I, ui: RenderUi): string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of tools of every result type; `unknown` would not accept their render functions (parameter variance).
export type AnyTool = ToolDefinition<z.ZodObject, any, any>;

/** A group of tools (`retrieve`, `arango`, ...) and the work it needs done when `serve` starts. */
export interface ToolGroup {
  name: string;
  /** What the group is for, in the words a task uses: the search meta-tools name it, and rank on it. */
  summary: string;
  tools: readonly AnyTool[];
  /**
   * Run once before `serve` answers anything. A throw stops serve with the message (fail fast);
   * background work (connecting a database) is started here and not awaited.
   */
  onServe?(ctx: ToolContext): Promise<void>;
}

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const COMMAND_ID = /^[a-z][a-z0-9-]*( [a-z][a-z0-9-]*)+$/;

/** Checks the static parts of a definition at import time so a typo fails the build, not a user. */
export function defineTool<S extends z.ZodObject, R, I = unknown>(tool: ToolDefinition<S, R, I>): ToolDefinition<S, R, I> {
  if (!SNAKE.test(tool.name)) throw new Error(`Tool name "${tool.name}" must be snake_case (the MCP name).`);
  if (!COMMAND_ID.test(tool.command.id)) throw new Error(`Tool ${tool.name}: command id "${tool.command.id}" must look like "topic verb".`);
  if (tool.command.examples.length === 0) throw new Error(`Tool ${tool.name}: give at least one example for --help.`);
  const shape = tool.input.shape as Record<string, unknown>;
  for (const arg of tool.command.args ?? []) {
    if (!(arg in shape)) throw new Error(`Tool ${tool.name}: positional argument "${arg}" is not an input field.`);
  }
  for (const field of Object.keys({
    ...tool.command.flagNames,
    ...tool.command.chars,
    ...tool.fieldCodes,
    ...Object.fromEntries((tool.command.pairs ?? []).map((f) => [f, f])),
    ...Object.fromEntries((tool.command.afterDoubleDash ?? []).map((f) => [f, f])),
  })) {
    if (!(field in shape)) throw new Error(`Tool ${tool.name}: a setting for "${field}", which is not an input field.`);
  }
  for (const [flag, habit] of Object.entries(tool.command.habits ?? {})) {
    if (habit.conflicts !== undefined && !(habit.conflicts in shape))
      throw new Error(`Tool ${tool.name}: habit --${flag} conflicts with "${habit.conflicts}", which is not an input field.`);
  }
  if (tool.enforcesReadOnly && tool.annotations.readOnlyHint) throw new Error(`Tool ${tool.name}: enforcesReadOnly is for writers only.`);
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
