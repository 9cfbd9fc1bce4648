import type { Hook } from '@oclif/core';
import { closestNames } from '../core/suggest.js';
import { reportError } from './tool-runner.js';

/**
 * oclif's command_not_found hook: a mistyped command is bad usage (exit 2), named in the user's
 * words ("retrieve serch", not oclif's "retrieve:serch:foo"), with the closest commands. Not
 * @oclif/plugin-not-found: it asks "did you mean" interactively and exits 127, where mcpkit
 * promises exit 2 and an answer a script can read.
 */
const hook: Hook.CommandNotFound = async function (options) {
  const words = options.id.split(':');
  const commands = options.config.commands.filter((c) => !c.hidden).map((c) => c.id.split(':').join(' '));
  const topics = new Set(commands.filter((c) => c.includes(' ')).map((c) => c.split(' ')[0]!));
  // A topic and a verb ("retrieve serch"), or a mistyped topic with its verb ("confg path"), or one word.
  const pair = words.length > 1 ? words.slice(0, 2).join(' ') : undefined;
  const asPair = pair !== undefined ? closestNames(pair, commands) : [];
  const typed = pair !== undefined && (topics.has(words[0]!) || asPair.length > 0) ? pair : words[0]!;
  const similar = typed === pair ? asPair : closestNames(typed, commands);
  const bin = options.config.bin;
  reportError(
    {
      code: 'INVALID_INPUT',
      message: `"${typed}" is not ${bin === 'mcpkit' ? 'an' : 'a'} ${bin} command.`,
      hint: `${similar.length ? `Did you mean ${similar.map((s) => `"${bin} ${s}"`).join(', ')}? ` : ''}"${bin} --help" lists the commands.`,
    },
    (options.argv ?? []).includes('--json'),
  );
  this.exit(2);
};

export default hook;
