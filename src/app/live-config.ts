import type { ConfigSource } from '../config/locate.js';
import type { ConfigWithSource } from '../config/load.js';
import type { ReloadPlan } from '../config/reload-plan.js';
import type { McpkitConfig } from '../config/schema/schema.js';
import type { SecretSnapshot } from '../config/secrets/secret-sources.js';
import { Listeners } from '../core/listeners.js';
import type { Logger } from '../core/logger.js';
import { warnOfHeldEditLock } from './held-edit-lock.js';

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
  /**
   * Parts of the config that say who may do what (the serve section, a view) whose text cannot be
   * used now: the last good ones stay in force (config/keep-access.ts), with the text's problems.
   */
  kept_from_last_good?: Record<string, readonly string[]>;
}

/** A config read by a reload, to serve: its text, secrets and the lock file's text read just before it. */
type Next = { config: McpkitConfig; text: string | undefined; pinText: string; heldLock: string | undefined; secrets?: SecretSnapshot };

/** How long a changed file must hold still before it is read as a whole, and how long to wait for it at most. */
export const SETTLE_MS = 60;
export const SETTLE_LIMIT_MS = 2000;

export interface LiveConfigOptions {
  location: ConfigSource;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** The config the process started with, when the front end read it already. */
  initial?: Promise<ConfigWithSource>;
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
  /** The secrets (`${file:}`, `${keyring:}`) the current config was made with: a change of one is a change of the config. */
  private secrets?: SecretSnapshot;
  private following?: {
    /** Checks what only the front end knows (serve's policy from the config); a throw keeps the last good config. */
    accept: (config: McpkitConfig) => Promise<void>;
    apply: (before: McpkitConfig, after: McpkitConfig, plan: ReloadPlan) => Promise<void>;
  };
  private queue: Promise<unknown> = Promise.resolve();
  private last?: ConfigStatus['last_reload'];
  private lastProblem?: string;
  private kept: Record<string, readonly string[]> = {};
  /** Every reload's report (the metrics count them). */
  readonly reloaded = new Listeners<[ReloadReport]>();
  /** Why a reload could not use the file, once per distinct problem. */
  readonly problems = new Listeners<[string]>();

  constructor(private readonly options: LiveConfigOptions) {
    this.current = options.initial?.then((loaded) => this.keepSource(loaded));
    void this.current?.then(
      (config) => (this.settled = config),
      () => undefined,
    );
  }

  /** The current config, loaded on first use. */
  get(): Promise<McpkitConfig> {
    if (!this.current) {
      this.current = import('../config/load.js')
        .then(({ loadConfigWithSource }) => loadConfigWithSource(this.options.location, this.options.env))
        .then((loaded) => this.keepSource(loaded));
      void this.current.then(
        (config) => this.settle(config),
        () => undefined,
      );
    }
    return this.current;
  }

  /** The current config once it is loaded (undefined before): for what must be decided without waiting. */
  get loaded(): McpkitConfig | undefined {
    return this.settled;
  }

  private settled?: McpkitConfig;
  private settle(config: McpkitConfig): void {
    if (this.current) this.settled = config;
  }

  /** The generation served now (cheap enough to ask on every request). */
  get currentGeneration(): number {
    return this.generation;
  }

  /** The secrets the served config was made with (undefined: it uses none), for app/follow-secrets.ts to watch. */
  get servedSecrets(): SecretSnapshot | undefined {
    return this.secrets;
  }

  /** The text the first config loaded came from (before `follow`; undefined with no file, or once a reload served another). */
  get loadedText(): string | undefined {
    return this.firstSource?.config === this.settled ? this.firstSource?.text : undefined;
  }

  /** The first config loaded, with its text and secrets as read: what `follow` compares later reads with. */
  private firstSource?: ConfigWithSource;
  private keepSource(loaded: ConfigWithSource): McpkitConfig {
    this.firstSource = loaded;
    this.pinsRead = { config: loaded.config, text: loaded.pinText };
    warnOfHeldEditLock(this.options.logger, loaded.heldLock);
    return loaded.config;
  }

  private pinsRead?: { config: McpkitConfig; text: string | undefined };
  /** The lock file's text read just before the config served now (config/files/read-with-pins.ts; undefined: not read with it). */
  get pinTextAtLoad(): string | undefined {
    const read = this.pinsRead;
    return read && read.config === this.settled ? read.text : undefined;
  }

  /** The text of the file the served config came from (a follower's; undefined before `follow`, or with no file). */
  get servedText(): string | undefined {
    return this.text;
  }

  status(): ConfigStatus {
    return {
      generation: this.generation,
      ...(this.last ? { last_reload: this.last } : {}),
      ...(Object.keys(this.kept).length ? { kept_from_last_good: this.kept } : {}),
    };
  }

  /** From now on `reload` applies what the file says (serve). The text served now is what later reads are compared with. */
  async follow(accept: NonNullable<LiveConfig['following']>['accept'], apply: NonNullable<LiveConfig['following']>['apply']): Promise<void> {
    this.following = { accept, apply };
    const served = await this.get();
    // The text the served config was made from: a file changed since then is a change, seen at the next reload.
    const source = this.firstSource?.config === served ? this.firstSource : undefined;
    if (source) {
      this.text = source.text;
      this.secrets = source.secretSources;
    } else {
      const { readFile } = await import('node:fs/promises');
      this.text = await readFile(this.options.location.path, 'utf8').catch(() => undefined);
    }
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
  private async read(): Promise<Next | undefined> {
    const { path } = this.options.location;
    const [{ inspectConfigText, inspectConfigTextWithSecrets }, { configInvalid }] = await Promise.all([
      import('../config/load.js'),
      import('../config/check/problems.js'),
    ]);
    const { readWithPinText } = await import('../config/files/read-with-pins.js');
    const problems = (candidate: string) => inspectConfigText(this.options.location, candidate, this.options.env).problems;
    const { pinText, value: text, heldLock } = await readWithPinText(path, () => this.settledText(path, problems));
    if (text === undefined) {
      // An editor that deletes before writing, or a file moved away: serving the defaults would drop every server.
      if (this.text !== undefined) throw new Error(`${path} is gone`);
      return undefined;
    }
    // The same text names the same secrets: only when it names some must they be read again to know.
    if (text === this.text && this.secrets === undefined) return undefined;
    // `: > file` and an editor that truncates before writing leave it empty for a moment: an empty
    // file is read as a missing one, not as a config without servers, views or tokens.
    if (text.trim() === '' && this.text !== undefined) throw new Error(`${path} is empty`);
    const loaded = await inspectConfigTextWithSecrets(this.options.location, text, this.options.env);
    if (text === this.text && loaded.secretSources?.digest === this.secrets?.digest) return undefined;
    if (!loaded.config) throw configInvalid(path, loaded.problems);
    return { config: loaded.config, text: loaded.text, pinText, heldLock, ...(loaded.secretSources ? { secrets: loaded.secretSources } : {}) };
  }

  /**
   * The file's text once it holds still: its size and modification time the same before the read
   * and SETTLE_MS after it, and, for a text that does not parse (a write that stopped mid-token),
   * the same text read again after that pause. A file still moving after SETTLE_LIMIT_MS is read
   * as it is then (and refused if it does not parse). The text served needs no pause (most events
   * are spurious, or the tool pins written beside it), nor does the first read of an unchanged file.
   */
  private async settledText(path: string, yamlProblems: (text: string) => readonly { path: string }[]): Promise<string | undefined> {
    const { readFile, stat } = await import('node:fs/promises');
    const pause = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const read = async () => {
      const before = await stat(path).catch(() => undefined);
      const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw new Error(`cannot read ${path}: ${error.message}`);
      });
      return { text, mark: before ? `${before.size}:${before.mtimeMs}` : undefined };
    };
    const deadline = Date.now() + SETTLE_LIMIT_MS;
    let now = await read();
    while (now.text !== undefined && now.text !== this.text && Date.now() < deadline) {
      await pause();
      const after = await stat(path).catch(() => undefined);
      const moved = !after || `${after.size}:${after.mtimeMs}` !== now.mark;
      if (!moved) {
        const unparsed = yamlProblems(now.text).some((p) => p.path.startsWith('line ') || p.path === '(yaml)');
        if (!unparsed) return now.text;
        const again = await read();
        if (again.text === now.text) return now.text;
        now = again;
        continue;
      }
      now = await read();
    }
    return now.text;
  }

  private async applyNext(next: Next): Promise<ReloadReport> {
    const [before, { planReload, describePlan }] = await Promise.all([this.get(), import('../config/reload-plan.js')]);
    const { keepLastGoodAccess } = await import('../config/keep-access.js');
    const guarded = keepLastGoodAccess(before, next.config);
    try {
      await this.following?.accept(guarded.config);
    } catch (error) {
      return this.keep((error as Error).message);
    }
    this.keptAccess(guarded.kept);
    next = { ...next, config: guarded.config };
    const plan = planReload(before, next.config);
    this.current = Promise.resolve(next.config);
    this.settled = next.config;
    this.pinsRead = { config: next.config, text: next.pinText };
    warnOfHeldEditLock(this.options.logger, next.heldLock);
    this.text = next.text;
    this.secrets = next.secrets;
    this.generation++;
    this.lastProblem = undefined;
    await this.following?.apply(before, next.config, plan);
    const message = describePlan(plan);
    const line = `config reloaded (generation ${this.generation}): ${message}`;
    if (this.options.announce) this.options.announce(line);
    else this.options.logger.info(line);
    const { setAsideWarning } = await import('../config/check/problems.js');
    for (const [unit, lines] of Object.entries(next.config.unusable ?? {})) {
      if (JSON.stringify(before.unusable?.[unit]) !== JSON.stringify(lines)) this.options.logger.warn(setAsideWarning(unit, lines));
    }
    return { ...this.report('applied', message), plan };
  }

  /** Says once, on stderr (announce) and in the log, which parts that decide access stay as they were, and why. */
  private keptAccess(kept: Record<string, readonly string[]>): void {
    const before = JSON.stringify(this.kept);
    this.kept = kept;
    if (JSON.stringify(kept) === before) return;
    for (const [unit, problems] of Object.entries(kept)) {
      const what = unit === 'serve' ? 'The serve section' : `View "${unit.slice('tool_views.'.length)}"`;
      const line = `${what} of ${this.options.location.path} cannot be used; the last good one stays in force (who may use what does not change until it is fixed):\n${problems.map((p) => `  ${p}`).join('\n')}`;
      this.options.logger.warn(line);
      this.problems.emit(line);
    }
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
