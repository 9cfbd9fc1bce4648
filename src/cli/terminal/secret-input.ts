import { ToolError } from '../../core/errors.js';

/** The most `secret set` reads: as much as a secret file may hold (config/secrets/secret-sources.ts). */
const MAX_SECRET_BYTES = 1024 * 1024;

/** What a secret's value is read from: this process's stdin, and stderr for the prompt. */
export interface SecretTerminal {
  stdin: NodeJS.ReadStream;
  prompt: (text: string) => void;
}

/**
 * A secret's value for `mcpkit secret set`: never from the command line (ps, shell history and
 * CI logs keep argv). Piped in, it is stdin's text with one trailing newline dropped (as
 * `${file:}` drops it); at a terminal, it is asked for without echo.
 */
export async function readSecretValue(name: string, terminal: SecretTerminal): Promise<string> {
  const value = terminal.stdin.isTTY ? await askHidden(`Value of ${name} (not shown): `, terminal) : await readAll(terminal.stdin);
  if (value === '') {
    throw new ToolError('INVALID_INPUT', `No value for ${name}: stdin was empty.`, {
      hint: `Pipe the value in (printf %s "$VALUE" | mcpkit secret set ${name}), or run the command in a terminal to be asked for it.`,
    });
  }
  return value;
}

async function readAll(stdin: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_SECRET_BYTES) throw new ToolError('INVALID_INPUT', `The value on stdin is larger than a secret's ${MAX_SECRET_BYTES} bytes.`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** A line typed at the terminal with echo off: Enter ends it, Backspace takes back a character, Ctrl-C or Ctrl-D gives up. */
function askHidden(question: string, terminal: SecretTerminal): Promise<string> {
  const { stdin } = terminal;
  terminal.prompt(question);
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      terminal.prompt('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (data: Buffer) => {
      for (const char of data.toString('utf8')) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003' || char === '\u0004') return done(new ToolError('INVALID_INPUT', 'No secret was set: the prompt was given up.'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}
