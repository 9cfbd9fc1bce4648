import { locateConfig } from '../config/locate.js';
import { parseDaemonControlArgs, type DaemonControlVerb } from './args/daemon-control-args.js';
import { daemonStartAnswer, daemonStatusAnswer, daemonStopAnswer, type DaemonControlAnswer } from './daemon-control.js';
import { processIo } from './terminal/cli-io.js';
import { formatJson } from './terminal/output.js';
import { commandWords, reportFailure } from './terminal/report.js';

const ANSWERS: Record<DaemonControlVerb, (configPath: string, env: NodeJS.ProcessEnv) => Promise<DaemonControlAnswer>> = {
  start: daemonStartAnswer,
  stop: daemonStopAnswer,
  status: daemonStatusAnswer,
};

/**
 * `mcpkit daemon start|stop|status`: what `daemon: auto`, scripts and the suite run around every
 * daemon, where loading oclif and its command table was most of the command's CPU (~0.6 of
 * ~0.95 CPU-s here). A plain line (args/daemon-control-args.ts) is answered here through the
 * answers the oclif commands give (./daemon-control.ts), printed as they print them: the words,
 * or the result as JSON under --json; a failure through the one reporter. Anything else returns
 * false and goes to oclif. Built as one CommonJS file (scripts/build.mjs).
 */
export async function fastDaemonControl(argv: readonly string[]): Promise<boolean> {
  const args = parseDaemonControlArgs(argv);
  if (!args) return false;
  const io = processIo();
  try {
    const location = locateConfig({ flag: args.config, env: process.env, cwd: process.cwd() });
    const answer = await ANSWERS[args.verb](location.path, process.env);
    if (answer.exitCode !== undefined) io.exitCode(answer.exitCode);
    io.out(args.json ? formatJson(answer.result) : `${await answer.text(io.outColor)}\n`);
  } catch (error) {
    reportFailure(error, { json: args.json, words: commandWords(`daemon ${args.verb}`), io });
  }
  return true;
}
