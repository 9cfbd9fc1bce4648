import type { McpkitConfig } from '../config/schema.js';
import type { TaskSettings } from './task-host.js';

/** The defaults of serve.tasks. */
export const TASK_DEFAULTS = { afterMs: 500, maxTtlMs: 3_600_000, maxPerOwner: 100, maxBytesPerOwner: 16 * 1024 * 1024 } as const;

/** serve.tasks as the task host reads it, defaults filled in. Pure. */
export function taskSettingsOf(tasks: McpkitConfig['serve']['tasks']): TaskSettings {
  return {
    afterMs: tasks?.after_ms ?? TASK_DEFAULTS.afterMs,
    byTool: Object.entries(tasks?.tools ?? {}).map(([pattern, afterMs]) => ({ pattern, afterMs })),
    required: tasks?.required ?? [],
    bounds: {
      maxTtlMs: tasks?.max_ttl_ms ?? TASK_DEFAULTS.maxTtlMs,
      maxPerOwner: tasks?.max_per_client ?? TASK_DEFAULTS.maxPerOwner,
      maxBytesPerOwner: tasks?.max_result_bytes ?? TASK_DEFAULTS.maxBytesPerOwner,
    },
  };
}
