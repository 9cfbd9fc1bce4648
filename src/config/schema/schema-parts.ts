import * as z from 'zod';
import { EXPOSURES, TOKEN_BUDGET_RANGE } from './defaults.js';

/** Pieces of the config's schema that more than one of its sections uses. */
export const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
export const name = (what: string) => z.string().regex(NAME, `${what} names use letters, digits, "_", "-" and "." and start with a letter or digit`);

/**
 * A server's name: a name without "__", which separates a server from its tool in published names
 * (a view of several servers publishes SERVER__TOOL): with it, `a__b__c` would read as server `a__b`'s
 * tool `c` or server `a`'s tool `b__c`, and adding one server would take the other's name.
 */
export const serverName = () =>
  name('Server').refine((value) => !value.includes('__'), 'a server name may not contain "__", which separates a server from its tool in published names');

/** A string that may still hold `${VAR}` placeholders when an edit is validated before interpolation. */
export const templated = (check: (value: string) => boolean, message: string) => z.string().refine((value) => value.includes('${') || check(value), message);

/** Whether a value parses as an http(s) URL. */
export const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

export const exposureSchema = z.enum(EXPOSURES);
export const tokenBudgetSchema = z.int().min(TOKEN_BUDGET_RANGE.min).max(TOKEN_BUDGET_RANGE.max);
export const EXPOSURE_TEXT =
  'auto (default): every tool listed while tools/list fits token_budget, else search meta-tools plus the pinned and most used tools; direct: every tool listed; search: the meta-tools (and pins) only; code: search and describe answering with TypeScript declarations, and run_code, which runs a script against the tools (and pins).';

/** A view's code mode limits (exposure: code), each named in the error a run that hits it ends with. */
export const codeSettingsSchema = z
  .strictObject({
    max_declaration_bytes: z
      .int()
      .min(1000)
      .max(1_000_000)
      .optional()
      .describe(
        "Bytes of one tool's TypeScript declaration in search, describe and code types; past them the rest of its schema is written unknown, with a note (default 20000).",
      ),
    max_answer_bytes: z
      .int()
      .min(4000)
      .max(10_000_000)
      .optional()
      .describe('Bytes of the declarations in one search or describe answer; the tools past them are named, not declared (default 100000).'),

    timeout_ms: z.int().min(100).max(3_600_000).optional().describe('Wall time of one run, its tool calls included (default 30000).'),
    memory_mb: z
      .int()
      .min(1)
      .max(1024)
      .optional()
      .describe("A script's memory in MiB (default 64): its engine's WebAssembly memory grows at most this much past the 16 MiB it starts with."),
    max_calls: z.int().min(1).max(100_000).optional().describe('Tool calls in one run (default 100).'),
    max_parallel: z.int().min(1).max(64).optional().describe('Tool calls at once; the rest wait their turn (default 8).'),
    max_output_bytes: z.int().min(1000).max(100_000_000).optional().describe('Bytes of what a script prints and returns, together (default 200000).'),
  })
  .describe('Limits of code mode (exposure: code): a run that hits one ends with an error naming it.');

/** Where "registry add" got a server (mcp_servers.NAME.registry): what registry outdated and update follow. */
export const registryProvenanceSchema = z
  .strictObject({
    source: z.string().min(1).describe('The registry it came from (a name of registry.sources, or official / pulsemcp).'),
    name: z.string().min(1).describe("The server's name in that registry."),
    version: z.string().min(1).optional().describe('The version installed.'),
    package: z.string().min(1).optional().describe('Which of its packages or remotes (npm, pypi, nuget, oci, remote, mcpb).'),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional()
      .describe('An mcpb bundle: the SHA-256 it was checked against when it was unpacked.'),
  })
  .describe('Where "registry add" got this server: "mcpkit registry outdated" compares it with the registry, "registry update" moves it on.');
