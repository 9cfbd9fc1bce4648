/** The limits of one code-mode run (a view's `code:` settings), each named in the error when hit. */
export interface CodeLimits {
  /** Wall time of the run, its tool calls included. */
  timeoutMs: number;
  /** The script's heap. */
  memoryMb: number;
  /** Tool calls in one run. */
  maxCalls: number;
  /** Tool calls at once; the rest wait their turn. */
  maxParallel: number;
  /** Bytes of what the script prints and returns, together. */
  maxOutputBytes: number;
}

export const CODE_LIMIT_DEFAULTS: CodeLimits = {
  timeoutMs: 30_000,
  memoryMb: 64,
  maxCalls: 100,
  maxParallel: 8,
  maxOutputBytes: 200_000,
};

/** A view's `code:` settings over the defaults. Pure. */
export function codeLimitsOf(
  settings: { timeout_ms?: number; memory_mb?: number; max_calls?: number; max_parallel?: number; max_output_bytes?: number } | undefined,
): CodeLimits {
  return {
    timeoutMs: settings?.timeout_ms ?? CODE_LIMIT_DEFAULTS.timeoutMs,
    memoryMb: settings?.memory_mb ?? CODE_LIMIT_DEFAULTS.memoryMb,
    maxCalls: settings?.max_calls ?? CODE_LIMIT_DEFAULTS.maxCalls,
    maxParallel: settings?.max_parallel ?? CODE_LIMIT_DEFAULTS.maxParallel,
    maxOutputBytes: settings?.max_output_bytes ?? CODE_LIMIT_DEFAULTS.maxOutputBytes,
  };
}
