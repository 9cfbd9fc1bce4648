import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ToolError } from '../core/errors.js';
import type { OwnFiles } from '../config/files/own-files.js';

/**
 * Named roots the retrieve tools may read: `retrieve.roots` in the config (paths relative to the
 * config file), then DOCS_ROOT and CODE_ROOT from the environment (the variables the retrieval
 * tools have always read); with neither, an implicit root `code` that the caller chooses. Checked up front: a missing, non-directory or unreadable
 * root fails fast with CONFIG_INVALID and a reason code.
 */
export interface RootSpec {
  name: string;
  /** As configured (for messages). */
  given: string;
  path: string;
  /** Agents may read dotfiles and ignored files in it (retrieve.roots.NAME.hidden). */
  hidden?: boolean;
}

export interface Root {
  name: string;
  /** Real path, symlinks resolved: what every file must stay inside. */
  path: string;
  hidden?: boolean;
  /**
   * mcpkit's own files and folders (config/files/own-files.ts): never listed, searched or opened through
   * this root. Set for agents (loadRoots); a walk and an open both honour it, so every tool does.
   */
  withheld?: OwnFiles;
}

/** A root as the config writes it: a path, or a path with settings. */
export type ConfiguredRoot = string | { path: string; hidden?: boolean };

/**
 * `implicit`: the folder the root `code` is when nothing names a root (a terminal: where it runs;
 * serve: its config file's folder), or undefined for no root at all. Pure.
 */
export function rootSpecs(options: {
  configured?: Record<string, ConfiguredRoot>;
  configDir: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  implicit: string | undefined;
}): RootSpec[] {
  const specs: RootSpec[] = Object.entries(options.configured ?? {}).map(([name, entry]) => {
    const given = typeof entry === 'string' ? entry : entry.path;
    const hidden = typeof entry === 'string' ? undefined : entry.hidden;
    return { name, given, path: given.trim() === '' ? '' : isAbsolute(given) ? given : resolve(options.configDir, given), ...(hidden ? { hidden } : {}) };
  });
  for (const [name, variable] of [
    ['docs', 'DOCS_ROOT'],
    ['code', 'CODE_ROOT'],
  ] as const) {
    const value = options.env[variable];
    if (value !== undefined && !specs.some((s) => s.name === name))
      specs.push({ name, given: `$${variable}`, path: value.trim() === '' ? '' : resolve(options.cwd, value) });
  }
  if (specs.length === 0 && options.implicit !== undefined) specs.push({ name: 'code', given: '.', path: options.implicit });
  return specs;
}

function rootError(reason: string, spec: RootSpec, message: string): ToolError {
  return new ToolError('CONFIG_INVALID', `Root "${spec.name}" (${spec.given}) ${message}.`, {
    details: { reason, root: spec.name, path: spec.path },
    hint: 'Fix retrieve.roots in the config (or DOCS_ROOT / CODE_ROOT), then run the command again.',
  });
}

export function validateRoots(specs: readonly RootSpec[]): Root[] {
  return specs.map((spec) => {
    if (spec.path === '') throw rootError('MISSING_ROOT', spec, 'has no path');
    let stat;
    try {
      stat = statSync(spec.path);
    } catch {
      throw rootError('ROOT_NOT_FOUND', spec, `does not exist: ${spec.path}`);
    }
    if (!stat.isDirectory()) throw rootError('ROOT_NOT_DIRECTORY', spec, `is not a directory: ${spec.path}`);
    try {
      accessSync(spec.path, constants.R_OK | constants.X_OK);
    } catch {
      throw rootError('ROOT_NOT_READABLE', spec, `cannot be read: ${spec.path}`);
    }
    return { name: spec.name, path: realpathSync(spec.path), ...(spec.hidden ? { hidden: true } : {}) };
  });
}
