import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ToolError } from '../core/errors.js';

/**
 * Named roots the retrieve tools may read: `retrieve.roots` in the config (paths relative to the
 * config file), then DOCS_ROOT and CODE_ROOT from the environment (the variables the retrieval tools have always read); with neither, the
 * current directory is the root `code`. Checked up front: a missing, non-directory or unreadable
 * root fails fast with CONFIG_INVALID and a reason code.
 */
export interface RootSpec {
  name: string;
  /** As configured (for messages). */
  given: string;
  path: string;
}

export interface Root {
  name: string;
  /** Real path, symlinks resolved: what every file must stay inside. */
  path: string;
}

export function rootSpecs(options: { configured?: Record<string, string>; configDir: string; env: NodeJS.ProcessEnv; cwd: string }): RootSpec[] {
  const specs: RootSpec[] = Object.entries(options.configured ?? {}).map(([name, given]) => ({
    name,
    given,
    path: given.trim() === '' ? '' : isAbsolute(given) ? given : resolve(options.configDir, given),
  }));
  for (const [name, variable] of [
    ['docs', 'DOCS_ROOT'],
    ['code', 'CODE_ROOT'],
  ] as const) {
    const value = options.env[variable];
    if (value !== undefined && !specs.some((s) => s.name === name))
      specs.push({ name, given: `$${variable}`, path: value.trim() === '' ? '' : resolve(options.cwd, value) });
  }
  if (specs.length === 0) specs.push({ name: 'code', given: '.', path: options.cwd });
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
    return { name: spec.name, path: realpathSync(spec.path) };
  });
}
