/**
 * The one error type handlers throw, and the closed list of its codes. Each front end maps an
 * error once: the CLI to an exit code and `Error [CODE]: message`, MCP to an `isError` result.
 * Every code is documented here once (meaning, exit code, typical hint); docs/reference/errors.md
 * is generated from this list (scripts/reference.ts), and a test fails when it is stale.
 */
import { redact, redactDeep } from './redact.js';

export interface ErrorCodeInfo {
  /** What the code means, for docs/reference/errors.md. */
  meaning: string;
  /**
   * 2: arguments that do not fit the command or tool (oclif's own parse errors exit 2 too); 1:
   * anything else, including the retrieval tools' own codes for bad values, which their users know
   * as tool errors.
   */
  exit: 1 | 2;
  /** What usually helps; a thrown error's own hint is more specific. */
  hint: string;
}

const usage = (meaning: string, hint: string): ErrorCodeInfo => ({ meaning, exit: 2, hint });
const fault = (meaning: string, hint: string): ErrorCodeInfo => ({ meaning, exit: 1, hint });

export const ERROR_CODES = {
  INVALID_INPUT: usage(
    'Arguments that do not fit the tool or command (type, range, unknown field, missing value).',
    'Read the input schema, or run the command with --help.',
  ),
  VALIDATION_ERROR: usage("Arguments refused by an arango tool (the ArangoDB tool set's name for INVALID_INPUT).", "Read the tool's input schema."),
  QUERY_EMPTY: usage('A search was given no text to look for.', 'Give the text or question to search for.'),
  QUERY_INVALID: usage('A regular expression that does not compile.', 'Fix the expression, or search for a literal without --regex.'),
  QUERY_TOO_COMPLEX: fault(
    'A regular expression too deep for a line it met: its matcher ran out of stack (nested or alternative repetitions on a very long line).',
    'Simplify the expression (fewer nested repetitions and alternatives), narrow the search with a glob, or search for a literal.',
  ),
  LIMIT_INVALID: usage('A limit outside its range.', 'Give a limit within the range the message names.'),
  RANGE_INVALID: usage('A line range that is reversed or starts past the end of the file.', 'Give start <= end, within the file.'),
  REPO_INVALID: usage('No root of that name.', 'Name one of the roots in retrieve.roots.'),
  FILE_GLOB_INVALID: usage('A glob that is empty or does not compile.', 'Write a glob such as "**/*.md".'),
  PATH_EMPTY: usage('An empty path.', 'Give a path inside a root.'),
  PATH_OUT_OF_ROOT: fault('A path that leads outside its root (.., absolute, NUL, or a symlink whose target is outside).', 'Give a path inside a root.'),
  PATH_HIDDEN: fault(
    'A dotfile, a file in a dot-folder, or one .gitignore ignores, asked for over MCP from a root that does not serve them to agents.',
    'Read it in a terminal, or set retrieve.roots.NAME: { path: ..., hidden: true } to let agents read such files.',
  ),
  PATH_AMBIGUOUS: fault('A path that exists in several roots.', "Prefix the root's name, or pass repo."),
  FILE_NOT_FOUND: fault('No such file in the roots.', 'List the folder with list_dir (retrieve ls).'),
  DIR_NOT_FOUND: fault('No such folder in the roots.', 'List the parent with list_dir (retrieve ls).'),
  FILE_NOT_REGULAR: fault('A FIFO, socket or device where a regular file was asked for.', 'Open regular files only.'),
  FILE_BINARY: fault('A binary file where text was asked for.', 'Open text files only.'),
  NOT_FOUND: fault('No server, view, tool, prompt or resource of that name.', 'The message names the closest names; list them with the matching list command.'),
  CONFLICT: fault('The name is taken, or the state does not allow the change.', 'Pass --force to replace, or choose another name.'),
  CONFIG_NOT_FOUND: fault(
    'The config file named with --config or MCPKIT_CONFIG does not exist.',
    'Check the path, or create the file with mcpkit config init --config PATH.',
  ),
  CONFIG_INVALID: fault(
    'The config file is not valid: YAML, an unset variable, the schema, a bad root.',
    'mcpkit config validate lists every problem as path: message.',
  ),
  FILE_ACCESS: fault(
    'A file or folder could not be read, or one mcpkit must write could not be written (permissions, a read-only file system).',
    'Check the permissions of the path the message names.',
  ),
  FORBIDDEN: fault(
    'Not allowed here (e.g. revealing secrets over MCP, an admin tool that is off).',
    'Run it in a terminal, or change the setting the message names.',
  ),
  READ_ONLY: fault('A writing tool or query in read-only mode.', "Serve without --read-only, or turn off arango.read_only or the view's read_only."),
  UNAVAILABLE: fault(
    'An upstream server that is down, not started, or not configured correctly.',
    'Check it with mcpkit server test NAME; mcpkit reconnects with backoff.',
  ),
  DATABASE_UNAVAILABLE: fault('ArangoDB cannot be reached.', 'Start ArangoDB, or point ARANGO_URL / arango.url at yours.'),
  TIMEOUT: fault(
    'Something did not answer in time (an upstream server, a lock, a registry, ArangoDB).',
    'Raise the timeout the message names, or narrow the request.',
  ),
  UPSTREAM_ERROR: fault(
    'An upstream server or registry failed or answered something that is not the protocol.',
    'Check the upstream; the message carries its own words.',
  ),
  AUTH_REQUIRED: fault(
    'A server needs an OAuth login, or a login with more scope, before mcpkit can use it.',
    'Log in with mcpkit server login NAME (the message names the server).',
  ),
  AUTH_FAILED: fault('Credentials were refused (a bearer token, an API key).', 'Check the token or key the message names.'),
  RATE_LIMITED: fault('The registry asked us to slow down (HTTP 429) and retries ran out.', 'Wait, then try again.'),
  RESPONSE_TOO_LARGE: fault(
    'An answer over its size limit: a registry response, or registry list --all past registry.max_pages.',
    'Ask for less, or raise the limit the message names.',
  ),
  ARANGO_ERROR: fault('ArangoDB refused the request; errorNum and http_code say why.', "Read ArangoDB's message; the hint names the usual fix."),
  TOOL_NOT_APPROVED: fault(
    "An upstream tool that is new, or whose definition changed, since the server's tools were approved (tool pinning).",
    'Review it with mcpkit server diff NAME, then approve what it showed with mcpkit server approve NAME --digest DIGEST.',
  ),
  SCRIPT_ERROR: fault(
    'A code-mode script that does not parse, or that threw (or whose promise was rejected) and did not catch it.',
    "Read the script's error in the message; the script is the body of an async function, its tool calls reject with mcpkit's error code.",
  ),
  SCRIPT_LIMIT: fault(
    'A code-mode script hit one of its limits: memory, tool calls per run, or output bytes.',
    "Do less in one run, or raise the view's code setting the message names.",
  ),
  CONDITION_FAILED: fault(
    "A call refused by a condition on its arguments (a view's or a client's conditions): the message names where it is written, its key and its message.",
    'Call again with arguments that meet the condition; the describe tool lists the conditions that apply.',
  ),
  HOOK_ABORTED: fault('A pre_call or post_call hook stopped the call.', "The message carries the hook's reason."),
  HOOK_FAILED: fault('A hook module failed to load or threw.', 'Fix the hook module the message names.'),
  LISTEN_FAILED: fault(
    'serve --http could not listen: the port is taken, or the address cannot be bound.',
    'Choose another --port (0 picks a free one), or stop what holds it.',
  ),
  INTERNAL: fault('A bug in mcpkit: an error nobody anticipated.', 'This is a bug in mcpkit; please report it with the command you ran.'),
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

export interface ToolErrorOptions {
  details?: Record<string, unknown>;
  hint?: string;
  cause?: unknown;
}

export interface ErrorObject {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  hint?: string;
}

/** What marks a ToolError of any copy of this module (see ToolError's `Symbol.hasInstance`). */
const TOOL_ERROR = Symbol.for('mcpkit.ToolError');

export class ToolError extends Error {
  /**
   * Known by a mark, not by the class that made it: a process can hold two copies of this class
   * (./process-shared.ts says when). An error of one copy caught by the other (a runtime's refusal
   * reported by a command) must still be the ToolError it is, its code and hint kept, not an INTERNAL error.
   */
  static override [Symbol.hasInstance](value: unknown): value is ToolError {
    return typeof value === 'object' && value !== null && (value as { [TOOL_ERROR]?: unknown })[TOOL_ERROR] === true;
  }

  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  readonly hint?: string;

  constructor(code: ErrorCode, message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolError';
    this.code = code;
    this.details = options.details;
    this.hint = options.hint;
  }

  toJSON(): ErrorObject {
    return errorObject(this);
  }
}
Object.defineProperty(ToolError.prototype, TOOL_ERROR, { value: true });

export function isToolError(value: unknown): value is ToolError {
  return value instanceof ToolError;
}

/**
 * An input field named in a message. Handlers do not know which front end shows their errors, so
 * they write `field('url')`; the terminal shows `--url` (or `NAME` for a positional argument) and
 * MCP shows `"url"` (see `Words`).
 */
export function field(name: string): string {
  return `⟦${name}⟧`;
}

// Escaped: a single character outside ASCII in a bundle makes V8 hold the whole script's source as
// two-byte text, decoded at every start (serve's 4 MB script: ~20-40 ms CPU a start, measured).
const FIELD_REF = /\u27E6([^\u27E7]+)\u27E7/g;

/** A front end's words for what handlers leave open. */
export interface Words {
  /** How an input field is named: `--url` in a terminal, `"url"` over MCP. */
  field(name: string): string;
  /** What to do about arguments that do not fit, for an INVALID_INPUT without a hint of its own. */
  inputHint: string;
}

export const MCP_WORDS: Words = {
  field: (name) => `"${name}"`,
  inputHint: "Read the tool's input schema in tools/list; the call was not run.",
};

/** Stands, in a hint, for the front end's advice on arguments that do not fit (`Words.inputHint`). */
export const INPUT_HINT = '⟦#input⟧';

function inWords(text: string, words: Words): string {
  if (!text.includes('⟦')) return text;
  return text.replace(FIELD_REF, (_m, name: string) => (name === '#input' ? words.inputHint : words.field(name)));
}

/** Anything thrown, as the error object a front end publishes, in that front end's words. */
export function errorObject(error: unknown, words: Words = MCP_WORDS): ErrorObject {
  if (error instanceof ToolError) {
    const out: ErrorObject = { code: error.code, message: redact(inWords(error.message, words)) };
    if (error.details !== undefined) out.details = redactDeep(error.details);
    // Arguments that do not fit, without advice of their own, get the front end's usual advice.
    const hint = error.hint ?? (error.code === 'INVALID_INPUT' ? INPUT_HINT : undefined);
    if (hint !== undefined) out.hint = redact(inWords(hint, words));
    return out;
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL', message: redact(`Unexpected error: ${message}`), hint: ERROR_CODES.INTERNAL.hint };
}

/** 2 for usage mistakes (like oclif's own parse errors), 1 for everything else. */
export function exitCodeFor(error: Pick<ErrorObject, 'code'>): 1 | 2 {
  return ERROR_CODES[error.code]?.exit ?? 1;
}
