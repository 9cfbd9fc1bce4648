import { ToolError } from '../../core/errors.js';
import type { FilterRule } from '../../proxy/catalog/filter.js';
import { globToRegExp } from '../../proxy/catalog/filter.js';

/**
 * Command lines of the `filter` commands: `--include G` and `--exclude G` in the order given
 * (order decides, rsync-style), then `--` and the upstream command. oclif's parser keeps flags
 * apart by name, so the order is read here. Pure.
 */
export interface FilterArgs {
  rules: FilterRule[];
  /** The upstream command after `--`, if any. */
  command: string[];
  /** Every other argument, left for oclif (--url, --config, --json, ...). */
  rest: string[];
}

const RULE_FLAG = /^--(include|exclude)(?:=(.*))?$/s;

/**
 * `valueFlags`: the flags that take a value; with it, a command line may come without `--` (the
 * MCP Inspector's CLI drops a second `--`): the first word that is neither a flag nor a flag's
 * value starts the command, and it takes every word after it, flags included.
 */
export function parseFilterArgs(argv: readonly string[], options: { valueFlags?: readonly string[] } = {}): FilterArgs {
  const rules: FilterRule[] = [];
  const rest: string[] = [];
  let command: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      command = argv.slice(i + 1);
      break;
    }
    if (options.valueFlags && !token.startsWith('-')) {
      command = argv.slice(i);
      break;
    }
    if (options.valueFlags?.includes(token)) {
      rest.push(token, ...(i + 1 < argv.length ? [argv[++i]!] : []));
      continue;
    }
    const quoted = /^--(include|exclude)\s+(\S.*)$/s.exec(token);
    if (quoted) {
      throw new ToolError('INVALID_INPUT', `"${token}" is one argument: the flag and its pattern were quoted together.`, {
        hint: `Quote only the pattern: --${quoted[1]} "${quoted[2]}"`,
      });
    }
    const match = RULE_FLAG.exec(token);
    if (!match) {
      rest.push(token);
      continue;
    }
    const action = match[1] as 'include' | 'exclude';
    const pattern = match[2] ?? argv[++i];
    if (pattern === undefined || pattern === '' || pattern === '--') {
      throw new ToolError('INVALID_INPUT', `--${action} needs a pattern, e.g. --${action} "browser_*".`);
    }
    try {
      globToRegExp(pattern);
    } catch (error) {
      throw new ToolError('INVALID_INPUT', `--${action} "${pattern}": ${(error as Error).message}`);
    }
    rules.push(action === 'include' ? { include: pattern } : { exclude: pattern });
  }
  return { rules, command, rest };
}
