import * as z from 'zod';
import { codeSettingsSchema } from './schema-parts.js';

/**
 * serve.code: the limits of code mode for views that do not set theirs, and the budget of all of
 * serve's runs together (code/run-budget.ts), which a view cannot set. The budget's defaults are
 * sized to the machine.
 */
export const serveCodeSchema = codeSettingsSchema
  .extend({
    max_runs: z
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe('Runs in flight across all clients; one more is refused at once with RATE_LIMITED and retry_after_ms (default: 4 per core).'),
    max_runs_per_client: z
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe(
        'Runs in flight of one client, named or not (unnamed clients are one client per credential: anonymous, token:serve, ...); one more is refused with RATE_LIMITED (default: one per core, at least 2).',
      ),
    max_memory_mb: z
      .int()
      .min(32)
      .max(1_048_576)
      .optional()
      .describe(
        "Memory of all runs in flight together, in MB: each run counts its memory_mb and 16 MB for its thread; a run that does not fit is refused with RATE_LIMITED (default: max_runs runs of 64 MB, at most half the machine's memory).",
      ),
  })
  .describe('Limits of code mode for views that do not set theirs, and the default one (exposure: code); and the budget of all runs of serve together.');
