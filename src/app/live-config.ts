import type { ConfigSource } from '../config/locate.js';
import type { ReloadPlan } from '../config/reload-plan.js';
import type { McpkitConfig } from '../config/schema.js';
import { Listeners } from '../core/listeners.js';
import type { Logger } from '../core/logger.js';

/** What one reload did. */
export interface ReloadReport {
  /** applied: the new config is served; unchanged: the file says what is served; kept: it could not be used, the last good config stays. */
  outcome: 'applied' | 'unchanged' | 'kept';
  generation: number;
  /** The log line: what changed, or why the file was not used. */
  message: string;
  plan?: ReloadPlan;
}

export interface ConfigStatus {
  generation: number;
  last_reload?: { at: string; reason: string; outcome: ReloadReport['outcome']; message: string };
}

export interface LiveConfigOptions {
  location: ConfigSource;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** The config the process started with, when the front end read it already. */
  initial?: Promise<McpkitConfig>;
  /** Where the one line of each applied reload goes (serve: stderr, like its other lines); the log at info level when absent. */
  announce?: (line: string) => void;
}

/**
 * The one owner of "the current config" of a process, with a generation number. A one-shot
 * command loads it once. `serve` follows the file (`follow`): each `reload` reads it again and,
 * when it can be used as a whole, hands (old, new, plan) to `apply` (the runtime re-points its
 * hubs), then makes it current. A file that cannot be used keeps the last good config; the
 * problem is logged once and told to `problems` listeners (serve sends it to clients). Reloads
 * run one at a time, in the order asked.
 */
export class LiveConfig {
  private current?: Promise<McpkitConfig>;
  private generation = 1;
  /** The text of the file the current config came from (undefined: no file). */
  private text?: string;
  private following?: {
    /** Checks what only the front end knows (serve's policy from the config); a throw keeps the last good config. */
    accept: (config: McpkitConfig) => Promise<void>;
    apply: (before: McpkitConfig, after: McpkitConfig, plan: ReloadPlan) => Promise<void>;
  };
  private queue: Promise<unknown> = Promise.resolve();
  private last?: ConfigStatus['last_reload'];
  private lastProblem?: string;
  /** Every reload's report (the metrics count them). */
  readonly reloaded = new Listeners<[ReloadReport]>();
  /** Why a reload could not use the file, once per distinct problem. */
  readonly problems = new Listeners<[string]>();

  constructor(private readonly options: LiveConfigOptions) {
    this.current = options.initial;
  }

  /** The current config, loaded on first use. */
  get(): Promise<McpkitConfig> {
    return (this.current ??= import('../config/load.js').then(({ loadConfig }) => loadConfig(this.options.location, this.options.env)));
  }

  /** The generation served now (cheap enough to ask on every request). */
  get currentGeneration(): number {
    return this.generation;
  }

  /** The text of the file the served config came from (a follower's; undefined before `follow`, or with no file). */
  get servedText(): string | undefined {
    return this.text;
  }

  status(): ConfigStatus {
    return { generation: this.generation, ...(this.last ? { last_reload: this.last } : {}) };
  }

  /** From now on `reload` applies what the file says (serve). The text served now is what later reads are compared with. */
  async follow(accept: NonNullable<LiveConfig['following']>['accept'], apply: NonNullable<LiveConfig['following']>['apply']): Promise<void> {
    this.following = { accept, apply };
    await this.get();
    // Only the text: the config it came from is the one loaded (checking it again would cost start-up).
    const { readFile } = await import('node:fs/promises');
    this.text = await readFile(this.options.location.path, 'utf8').catch(() => undefined);
  }

  /** Reads the file again and serves what it says, if it can be used (see the class). */
  reload(reason: string): Promise<ReloadReport> {
    const run = this.queue.then(() => this.reloadNow(reason));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async reloadNow(reason: string): Promise<ReloadReport> {
    const report = await this.read().then(
      (next) => (next ? this.applyNext(next) : this.report('unchanged', 'the file is as served')),
      (error: Error) => this.keep(error.message),
    );
    this.last = { at: new Date().toISOString(), reason, outcome: report.outcome, message: report.message };
    this.reloaded.emit(report);
    return report;
  }

  /** The config the file says now, or undefined when its text is the one served. */
  private async read(): Promise<{ config: McpkitConfig; text: string | undefined } | undefined> {
    const { path } = this.options.location;
    const [{ readFile }, { inspectConfigText }, { configInvalid }] = await Promise.all([
      import('node:fs/promises'),
      import('../config/load.js'),
      import('../config/problems.js'),
    ]);
    // The text first: most events (a spurious one, the tool pins written beside it) leave it as served, and need no checks.
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw new Error(`cannot read ${path}: ${error.message}`);
    });
    if (text === undefined) {
      // An editor that deletes before writing, or a file moved away: serving the defaults would drop every server.
      if (this.text !== undefined) throw new Error(`${path} is gone`);
      return undefined;
    }
    if (text === this.text) return undefined;
    const loaded = inspectConfigText(this.options.location, text, this.options.env);
    if (!loaded.config) throw configInvalid(path, loaded.problems);
    return { config: loaded.config, text: loaded.text };
  }

  private async applyNext(next: { config: McpkitConfig; text: string | undefined }): Promise<ReloadReport> {
    const [before, { planReload, describePlan }] = await Promise.all([this.get(), import('../config/reload-plan.js')]);
    try {
      await this.following?.accept(next.config);
    } catch (error) {
      return this.keep((error as Error).message);
    }
    const plan = planReload(before, next.config);
    this.current = Promise.resolve(next.config);
    this.text = next.text;
    this.generation++;
    this.lastProblem = undefined;
    await this.following?.apply(before, next.config, plan);
    const message = describePlan(plan);
    const line = `config reloaded (generation ${this.generation}): ${message}`;
    if (this.options.announce) this.options.announce(line);
    else this.options.logger.info(line);
    const { setAsideWarning } = await import('../config/problems.js');
    for (const [unit, lines] of Object.entries(next.config.unusable ?? {})) {
      if (JSON.stringify(before.unusable?.[unit]) !== JSON.stringify(lines)) this.options.logger.warn(setAsideWarning(unit, lines));
    }
    return { ...this.report('applied', message), plan };
  }

  private keep(why: string): ReloadReport {
    const message = `${this.options.location.path} was not applied, the last good config (generation ${this.generation}) is still served: ${why}`;
    if (message !== this.lastProblem) {
      this.lastProblem = message;
      this.options.logger.warn(message);
      this.problems.emit(message);
    }
    return this.report('kept', message);
  }

  private report(outcome: ReloadReport['outcome'], message: string): ReloadReport {
    return { outcome, generation: this.generation, message };
  }
}
