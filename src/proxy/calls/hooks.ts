import type { CallToolResult } from '@modelcontextprotocol/server';
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HookConfig } from '../../config/schema/schema.js';
import { asHookCode } from '../../core/caller-stderr.js';
import { ToolError } from '../../core/errors.js';
import { importModule } from '../../core/import-module.js';

/**
 * pre_call(args, ctx) and post_call(result, args, ctx) from JS modules named in the config
 * (`hooks:` globally, and per view), around every call. A hook returns nothing (no change), `{ args }` /
 * `{ result }` to replace, or `{ abort: "reason" }` to stop the call. A hook that throws, or a module
 * that fails to load, fails the call with a HOOK_FAILED error naming the module: never swallowed.
 */
export type { HookConfig } from '../../config/schema/schema.js';

export interface HookContext {
  tool: string;
  server?: string;
  upstream_tool?: string;
  view?: string;
}

type PreCall = (args: Record<string, unknown>, ctx: HookContext) => unknown;
type PostCall = (result: CallToolResult, args: Record<string, unknown>, ctx: HookContext) => unknown;

interface LoadedHook {
  module: string;
  pre?: PreCall;
  post?: PostCall;
}

async function loadFunction(path: string, name: 'pre_call' | 'post_call', version: string): Promise<LoadedHook> {
  let mod: Record<string, unknown>;
  try {
    // Node keeps a module by its URL for the process's life: the file's version in the URL loads an edited module anew.
    mod = (await asHookCode(() => importModule(`${pathToFileURL(path).href}?v=${encodeURIComponent(version)}`))) as Record<string, unknown>;
  } catch (error) {
    throw new ToolError('HOOK_FAILED', `Cannot load hook module ${path}: ${(error as Error).message}`, {
      details: { module: path },
      hint: 'Check the path in hooks (relative to the config file) and that the module loads with node.',
    });
  }
  const fromDefault = mod.default && typeof mod.default === 'object' ? (mod.default as Record<string, unknown>)[name] : undefined;
  const fn = mod[name] ?? fromDefault ?? (typeof mod.default === 'function' ? mod.default : undefined);
  if (typeof fn !== 'function') {
    throw new ToolError('HOOK_FAILED', `Hook module ${path} has no ${name} function.`, { details: { module: path }, hint: `Export a function named ${name}.` });
  }
  return name === 'pre_call' ? { module: path, pre: fn as PreCall } : { module: path, post: fn as PostCall };
}

/** A file's version as a stat sees it (modified time, size, inode); "missing" when there is none. */
function versionOf(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.mtimeMs}-${stat.size}-${stat.ino}`;
  } catch {
    return 'missing';
  }
}

export class HookChain {
  private loaded?: Promise<LoadedHook[]>;
  /** The versions of the module files the loaded hooks came from: an edit is loaded by the next call. */
  private loadedVersions?: string;

  constructor(
    private readonly configs: readonly HookConfig[],
    private readonly baseDir: string,
  ) {}

  get empty(): boolean {
    return this.configs.every((c) => !c.pre_call && !c.post_call);
  }

  private paths(): { path: string; name: 'pre_call' | 'post_call' }[] {
    const at = (p: string) => (isAbsolute(p) ? p : resolve(this.baseDir, p));
    return this.configs.flatMap((c) => [
      ...(c.pre_call ? [{ path: at(c.pre_call), name: 'pre_call' as const }] : []),
      ...(c.post_call ? [{ path: at(c.post_call), name: 'post_call' as const }] : []),
    ]);
  }

  /**
   * The hooks as their files are now: loaded once, and again when a module file changed (a stat
   * per module per call). Only the module named in the config is checked; one it imports is kept
   * as first loaded. Not cached when loading fails, so a fixed module is picked up by the next call.
   */
  private current(): Promise<LoadedHook[]> {
    const hooks = this.paths();
    const versions = hooks.map((h) => versionOf(h.path));
    const stamp = versions.join('|');
    if (this.loaded && stamp === this.loadedVersions) return this.loaded;
    const loading = Promise.all(hooks.map((h, i) => loadFunction(h.path, h.name, versions[i]!)));
    this.loaded = loading;
    this.loadedVersions = stamp;
    loading.catch(() => {
      if (this.loaded === loading) this.loaded = undefined;
    });
    return loading;
  }

  /** Loads every module as a call would: a missing file, a load error or a missing function is HOOK_FAILED. */
  async check(): Promise<void> {
    await this.current();
  }

  /** Runs the call between every pre_call (in order) and every post_call (in reverse order). */
  async around(args: Record<string, unknown>, ctx: HookContext, call: (args: Record<string, unknown>) => Promise<CallToolResult>): Promise<CallToolResult> {
    if (this.empty) return call(args);
    const hooks = await this.current();
    let current = args;
    for (const hook of hooks.filter((h) => h.pre)) {
      const out = await invoke(hook, () => hook.pre!(structuredClone(current), ctx));
      if (out?.abort) throw aborted(hook, ctx, out.abort);
      if (out?.args && typeof out.args === 'object') current = out.args as Record<string, unknown>;
    }
    let result = await call(current);
    for (const hook of hooks.filter((h) => h.post).reverse()) {
      const out = await invoke(hook, () => hook.post!(result, current, ctx));
      if (out?.abort) throw aborted(hook, ctx, out.abort);
      if (out && 'result' in out && out.result !== undefined) result = asCallResult(out.result);
    }
    return result;
  }
}

function aborted(hook: LoadedHook, ctx: HookContext, reason: unknown): ToolError {
  return new ToolError('HOOK_ABORTED', `The call of ${ctx.tool} was stopped by a hook: ${String(reason)}`, {
    details: { module: hook.module, tool: ctx.tool },
  });
}

async function invoke(hook: LoadedHook, fn: () => unknown): Promise<{ args?: unknown; result?: unknown; abort?: unknown } | undefined> {
  try {
    const out = await asHookCode(fn);
    return out && typeof out === 'object' ? (out as { args?: unknown; result?: unknown; abort?: unknown }) : undefined;
  } catch (error) {
    throw new ToolError('HOOK_FAILED', `Hook ${hook.module} failed: ${(error as Error).message}`, { details: { module: hook.module } });
  }
}

function asCallResult(value: unknown): CallToolResult {
  if (value && typeof value === 'object' && Array.isArray((value as CallToolResult).content)) return value as CallToolResult;
  return {
    content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }],
    ...(value && typeof value === 'object' && !Array.isArray(value) ? { structuredContent: value as Record<string, unknown> } : {}),
  };
}
