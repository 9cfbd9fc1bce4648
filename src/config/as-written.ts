import { readFile } from 'node:fs/promises';
import { ToolError } from '../core/errors.js';
import { configData } from './check/yaml-data.js';
import { describeSource, type ConfigSource } from './locate.js';

/**
 * The config file's text as a load reads it (load.ts): none for a missing file the user did not
 * name, a problem for a folder, an error for a file the user named that is not there or one that
 * cannot be read.
 */
export async function readConfigText(location: ConfigSource): Promise<{ text: string } | { missing: true } | { directory: true }> {
  try {
    return { text: await readFile(location.path, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // A file the user named must exist: a typo would otherwise serve built-in defaults in silence.
      if (location.source === 'flag' || location.source === 'env') throw configNotFound(location);
      return { missing: true };
    }
    if (code === 'EISDIR') return { directory: true };
    throw new ToolError('CONFIG_INVALID', `Cannot read config ${location.path}: ${(error as Error).message}`, {
      details: { file: location.path, errno: code },
      hint: 'Check the file permissions, or point --config / MCPKIT_CONFIG at another file.',
    });
  }
}

/**
 * The config as written (placeholders intact), as a load's `raw` is: {} for no file, a folder, or
 * text that is no YAML mapping. Neither checked nor its secrets read: for what only lists the
 * names it gives (a tab press), which needs neither the schema's start-up nor a keyring's prompt.
 */
export async function configAsWritten(location: ConfigSource): Promise<Record<string, unknown>> {
  const read = await readConfigText(location);
  if (!('text' in read)) return {};
  const parsed = configData(read.text);
  return 'raw' in parsed ? parsed.raw : {};
}

export function configNotFound(location: ConfigSource): ToolError {
  return new ToolError('CONFIG_NOT_FOUND', `The config file ${location.path} (named by ${describeSource(location.source)}) does not exist.`, {
    details: { file: location.path, chosen_by: location.source },
    hint: `Check the path, or create it with: mcpkit config init --config ${location.path}`,
  });
}
