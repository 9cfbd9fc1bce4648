import type { ChalkInstance } from 'chalk';
import { createColor } from './color.js';

/**
 * Where a terminal command's output goes: this process's stdout and stderr, or, when mcpkit
 * daemon runs the command for a client, that client's (with its colour levels). Everything a
 * command prints goes through one of these, so both print the same.
 */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  exitCode(code: number): void;
  readonly outColor: ChalkInstance;
  readonly errColor: ChalkInstance;
}

let own: CliIo | undefined;

/** This process's own streams (colour decided from its environment and terminals, on first use). */
export function processIo(): CliIo {
  return (own ??= {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    exitCode: (code) => void (process.exitCode = code),
    get outColor() {
      return createColor(process.env, process.stdout);
    },
    get errColor() {
      return createColor(process.env, process.stderr);
    },
  });
}
