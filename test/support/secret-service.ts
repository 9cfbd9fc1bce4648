import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnTracked, stopChild, tempDir, type PipedChild } from '../helpers/cli.js';
import { waitFor } from '../helpers/upstreams.js';

/**
 * A real Secret Service for the keyring tests: a private D-Bus session bus and Debian's
 * gnome-keyring-daemon on it, unlocked with a throwaway password, its keyrings in a temp folder
 * (never the user's). The environment it gives is what a process needs to reach it. In CI (.ci/run
 * sets MCPKIT_KEYRING=required) one that cannot start fails the run; elsewhere the tests skip,
 * saying so in one line. The same as `dbus-run-session -- sh -c 'echo pw | gnome-keyring-daemon
 * --unlock --components=secrets; ...'`, with both processes tracked so that they are ended.
 */
const find = (name: string) => [`/usr/bin/${name}`, `/bin/${name}`, `/usr/local/bin/${name}`].find((p) => existsSync(p));
export const DBUS_DAEMON = find('dbus-daemon');
export const GNOME_KEYRING = find('gnome-keyring-daemon');
const DBUS_SEND = find('dbus-send');
export const KEYRING_REQUIRED = process.env.MCPKIT_KEYRING === 'required';

export interface RunningSecretService {
  /** DBUS_SESSION_BUS_ADDRESS and the folders gnome-keyring keeps its files in. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Why a Secret Service cannot be started here, or undefined when it can be tried. */
export function secretServiceMissing(): string | undefined {
  if (!DBUS_DAEMON) return 'dbus-daemon is not installed (Debian package "dbus")';
  if (!DBUS_SEND) return 'dbus-send is not installed (Debian package "dbus-bin")';
  if (!GNOME_KEYRING) return 'gnome-keyring-daemon is not installed (Debian package "gnome-keyring")';
  return undefined;
}

/** Whether the Secret Service's name is claimed on the bus (dbus-send, from the same package as dbus-daemon). */
function serviceOwned(env: Record<string, string>): boolean {
  const asked = spawnSync(
    DBUS_SEND ?? 'dbus-send',
    [
      '--session',
      '--print-reply',
      '--dest=org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus.NameHasOwner',
      'string:org.freedesktop.secrets',
    ],
    { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 5000 },
  );
  return /boolean true/.test(asked.stdout ?? '');
}

export async function startSecretService(): Promise<RunningSecretService> {
  const missing = secretServiceMissing();
  if (missing) throw new Error(missing);
  const home = tempDir('mcpkit-test-keyring-');
  const runtime = join(home, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  const children: PipedChild[] = [];
  const stop = async () => {
    for (const child of children.reverse()) await stopChild(child);
  };
  try {
    const bus = spawnTracked(DBUS_DAEMON!, ['--session', '--nofork', '--nopidfile', '--print-address=1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(bus);
    let address = '';
    bus.stdout.on('data', (d) => (address += d));
    if (!(await waitFor(() => address.includes('\n') || bus.exitCode !== null, 30_000)) || !address.trim()) throw new Error('dbus-daemon gave no address');
    const env = { DBUS_SESSION_BUS_ADDRESS: address.trim(), HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: runtime };
    const keyring = spawnTracked(GNOME_KEYRING!, ['--unlock', '--components=secrets', '--foreground'], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(keyring);
    let said = '';
    keyring.stdout.on('data', (d) => (said += d));
    keyring.stderr.on('data', (d) => (said += d));
    keyring.stdin.end('throwaway-password\n');
    if (!(await waitFor(() => keyring.exitCode !== null || serviceOwned(env), 30_000, 200)) || keyring.exitCode !== null)
      throw new Error(`gnome-keyring-daemon did not start: ${said.trim()}`);
    return { env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
