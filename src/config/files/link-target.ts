import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ToolError } from '../../core/errors.js';

/**
 * The file a path names, through symlinks, followed link by link (also a dangling one, whose
 * target an edit creates). Where a config is edited and where its edit lock is (config/edit.ts,
 * ./read-with-pins.ts): both must name the same `<target>.lock`, so both ask here.
 */
export function linkTarget(path: string): string {
  let target = path;
  for (let hops = 0; hops < 40; hops++) {
    const stats = lstatSync(target, { throwIfNoEntry: false });
    if (!stats?.isSymbolicLink()) return target;
    target = resolve(dirname(target), readlinkSync(target));
  }
  throw new ToolError('CONFIG_INVALID', `${path} is a symlink loop.`, { details: { file: path } });
}
