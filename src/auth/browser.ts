import { spawn } from 'node:child_process';

/**
 * The command that opens a URL: $BROWSER when set (as git, gh and xdg-open read it; it may carry
 * arguments), else the platform's opener. Pure, for tests.
 */
export function openerFor(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): { command: string; args: string[]; shell: boolean } {
  const browser = env.BROWSER?.trim();
  // The URL is passed as "$1", never pasted into the shell line.
  if (browser) return { command: 'sh', args: ['-c', `${browser} "$1"`, 'sh'], shell: false };
  if (platform === 'darwin') return { command: 'open', args: [], shell: false };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""'], shell: false };
  return { command: 'xdg-open', args: [], shell: false };
}

/** Starts the opener for a URL and does not wait for it; the caller always prints the URL too. */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv): void {
  const { command, args } = openerFor(env, process.platform);
  try {
    const child = spawn(command, [...args, url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined); // no opener here: the printed URL is the way
    child.unref();
  } catch {
    /* as above */
  }
}
