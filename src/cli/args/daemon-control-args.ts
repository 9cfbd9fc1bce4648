import { parsePlainLine } from './plain-line.js';

/** The daemon commands a plain line may run without oclif. */
export const DAEMON_CONTROL_VERBS = ['start', 'stop', 'status'] as const;
export type DaemonControlVerb = (typeof DAEMON_CONTROL_VERBS)[number];

/** A plain `daemon start|stop|status` line: the verb, the config named on the line, and --json. */
export interface DaemonControlArgs {
  verb: DaemonControlVerb;
  config?: string;
  json: boolean;
}

/**
 * `daemon start|stop|status [--config FILE] [--json]`, read after `daemon` by the one plain grammar
 * (plain-line.ts), else undefined: anything else (--help, --jq, `stop --all`, a stray word, a
 * flag oclif would refuse) goes through oclif for its usual output and messages. Pure.
 */
export function parseDaemonControlArgs(argv: readonly string[]): DaemonControlArgs | undefined {
  const [verb, ...rest] = argv;
  if (!(DAEMON_CONTROL_VERBS as readonly (string | undefined)[]).includes(verb)) return undefined;
  const line = parsePlainLine({ config: { type: 'string' }, json: { type: 'boolean' } }, rest, { positionals: false });
  if (!line || line.terminated) return undefined;
  const config = line.values.config as string | undefined;
  if (config === '') return undefined;
  return { verb: verb as DaemonControlVerb, ...(config === undefined ? {} : { config }), json: line.values.json === true };
}
