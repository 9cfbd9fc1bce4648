import type { McpkitConfig } from '../../config/schema/schema.js';
import { globToRegExp } from '../../proxy/catalog/filter.js';
import type { TaskSettings } from './task-host.js';

/** The defaults of serve.tasks. */
export const TASK_DEFAULTS = { afterMs: 500, maxTtlMs: 3_600_000, maxPerOwner: 100, maxBytesPerOwner: 16 * 1024 * 1024 } as const;

type Tasks = McpkitConfig['serve']['tasks'];
const made = new WeakMap<NonNullable<Tasks>, TaskSettings>();
let unset: TaskSettings | undefined;

/** serve.tasks as the task host reads it, defaults filled in and globs compiled: once per config generation (its object). */
export function taskSettingsOf(tasks: Tasks): TaskSettings {
  if (!tasks) return (unset ??= make(undefined));
  let settings = made.get(tasks);
  if (!settings) made.set(tasks, (settings = make(tasks)));
  return settings;
}

function make(tasks: Tasks): TaskSettings {
  const byTool = Object.entries(tasks?.tools ?? {}).map(([pattern, afterMs]) => ({ test: globToRegExp(pattern), afterMs }));
  const required = (tasks?.required ?? []).map(globToRegExp);
  const afterMs = tasks?.after_ms ?? TASK_DEFAULTS.afterMs;
  return {
    afterMsFor: (tool) => byTool.find((t) => t.test.test(tool))?.afterMs ?? afterMs,
    requires: (tool) => required.some((r) => r.test(tool)),
    bounds: {
      maxTtlMs: tasks?.max_ttl_ms ?? TASK_DEFAULTS.maxTtlMs,
      maxPerOwner: tasks?.max_per_client ?? TASK_DEFAULTS.maxPerOwner,
      maxBytesPerOwner: tasks?.max_result_bytes ?? TASK_DEFAULTS.maxBytesPerOwner,
    },
  };
}
