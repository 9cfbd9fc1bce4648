import { ToolError } from '../../core/errors.js';
import { printable } from '../../core/printable.js';
import { textAsSent } from '../../config/secrets/interpolate.js';
import { shellQuote } from '../../tool/command-line.js';
import type { PersonQuestion, ToolContext } from '../../tool/context.js';

/**
 * A command an agent asks mcpkit to run needs a person. Over MCP, a tool that would make mcpkit
 * run a new command (a stdio server added, imported or installed from a registry; a server an
 * agent added started for a look) asks the person at the client first, through elicitation, with
 * the exact command lines; where the client cannot ask it is refused, saying what to run in a
 * terminal instead. A prompt-injected agent otherwise gets code execution with nobody involved.
 * serve.agent_commands: allow opts out (a trusted set-up), deny refuses without asking. A person
 * at a terminal is not asked: they typed the command.
 */
export async function requirePersonFor(ctx: ToolContext, question: PersonQuestion, inTerminal: string): Promise<void> {
  if (ctx.surface === 'cli' || (question.commands.length === 0 && !question.connects?.length)) return;
  const setting = (await ctx.config()).serve.agent_commands ?? 'ask';
  if (setting === 'allow') return;
  const terminal = `Run it in a terminal instead: ${inTerminal}`;
  const what = question.commands.length ? 'would run a command' : 'would connect mcpkit to a server an agent named';
  const details = { commands: question.commands, ...(question.connects?.length ? { connects: question.connects } : {}) };
  if (setting === 'deny') {
    throw new ToolError('FORBIDDEN', `${question.action} ${what}, and this server does not do that for an agent (serve.agent_commands: deny).`, {
      details,
      hint: terminal,
    });
  }
  const answer = ctx.askPerson ? await ctx.askPerson(question) : 'unavailable';
  if (answer === 'approved') return;
  if (answer === 'declined') {
    throw new ToolError('FORBIDDEN', `The person declined: ${question.action} was not done.`, { details });
  }
  throw new ToolError(
    'FORBIDDEN',
    `${question.action} ${what}, which needs a person's approval, and this client cannot ask for it (it does not offer elicitation).`,
    {
      details,
      hint: `${terminal} (or, for a set-up you trust, serve.agent_commands: allow).`,
    },
  );
}

/** A stdio server's command line as a shell would run it: environment first, then the command and its arguments, every word quoted and escaped. Pure. */
export function serverCommandLine(entry: {
  command?: string;
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
  cwd?: string;
}): string | undefined {
  if (entry.command === undefined) return undefined;
  const env = Object.entries(entry.env ?? {}).map(([k, v]) => `${printable(k)}=${printable(shellQuote(v))}`);
  const words = [entry.command, ...(entry.args ?? [])].map((w) => printable(shellQuote(w)));
  const line = [...env, ...words].join(' ');
  return entry.cwd === undefined ? line : `(cd ${printable(shellQuote(entry.cwd))} && ${line})`;
}

/**
 * A remote server's entry as it would be reached: its URL and each header as they will be sent
 * (an escaped `$${` as the `${` it is; a variable named for what it is, never its value), for a
 * person to approve; undefined for a stdio server. Pure.
 */
export function serverConnectionLines(entry: { url?: string; headers?: Readonly<Record<string, string>> }): string[] | undefined {
  if (entry.url === undefined) return undefined;
  return [
    `connect to ${printable(textAsSent(entry.url))}`,
    ...Object.entries(entry.headers ?? {}).map(([name, value]) => `  with the header ${printable(name)}: ${printable(textAsSent(value))}`),
  ];
}

/** The form the question is put to the person as (MCP elicitation, form mode): the text and one yes/no field. Pure. */
export function approvalForm(question: PersonQuestion): {
  message: string;
  requestedSchema: { type: 'object'; properties: { approve: { type: 'boolean'; title: string; description: string; default: boolean } }; required: string[] };
} {
  const parts = [`An agent asks mcpkit: ${printable(question.action)}.`];
  if (question.commands.length) {
    parts.push(`mcpkit would run:\n${question.commands.map((c) => `  ${c}`).join('\n')}`);
    parts.push('Approve only if you trust this command: it runs as you, with your files and network.');
  }
  if (question.connects?.length) {
    parts.push(
      `mcpkit would ${question.connects
        .map((c) => `  ${c}`)
        .join('\n')
        .trimStart()}`,
    );
    parts.push('Approve only if you trust this server: mcpkit sends it what agents call it with, and these headers.');
  }
  const title = question.commands.length ? 'Run this command' : 'Connect to this server';
  return {
    message: parts.join('\n'),
    requestedSchema: {
      type: 'object',
      properties: { approve: { type: 'boolean', title, description: 'Yes does it; no refuses the request.', default: false } },
      required: ['approve'],
    },
  };
}

/**
 * The `sandbox:` a stdio server added by a tool gets: what the person asked for (`--sandbox`, or
 * `sandbox: false` to add it without a box), else over MCP, where an agent asks, a box with the
 * network (npx and uvx download, and most servers call an API) wherever bubblewrap can make one.
 * A person at a terminal who did not ask gets none. Undefined: write nothing.
 */
export async function sandboxFor(
  ctx: ToolContext,
  asked: boolean | undefined,
  whenAsked: true | { network: true } = true,
): Promise<true | { network: true } | undefined> {
  if (asked === true) return whenAsked;
  if (asked === false || ctx.surface !== 'mcp') return undefined;
  const { hostFacts } = await import('../../proxy/sandbox/host-facts.js');
  return hostFacts(ctx.env).bwrap ? { network: true } : undefined;
}

/** How the approval form says where the command runs. */
export function boxWords(sandbox: unknown): string {
  if (sandbox === undefined || sandbox === false) return 'without a box (it can read and write all your files)';
  const spec = sandbox === true ? {} : (sandbox as { network?: boolean });
  return `in a box (bubblewrap: none of your files${spec.network ? ', the network' : ', no network'})`;
}
