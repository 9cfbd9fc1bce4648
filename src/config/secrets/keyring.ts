import { ToolError } from '../../core/errors.js';
import { KEYRING_SERVICE, keyringNameProblem } from './secret-refs.js';

/**
 * The system keyring, through @napi-rs/keyring (macOS Keychain, Windows Credential Manager, the
 * Secret Service on Linux): each secret is service "mcpkit", account NAME. The native module is
 * loaded on first use only (start-up time), and on Linux pinned to the Secret Service: its
 * fallback, the kernel's session keyring, forgets a secret when the session ends, which a
 * `secret set` that "worked" must not do.
 */
export interface Keyring {
  /** The secret's value, or undefined when there is none of that name. */
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  /** Whether there was one to remove. */
  remove(name: string): Promise<boolean>;
  /** The names of mcpkit's secrets (never their values), sorted. */
  names(): Promise<string[]>;
}

type Module = typeof import('@napi-rs/keyring');

let loaded: Promise<Module> | undefined;
const keyringModule = (): Promise<Module> => (loaded ??= import('@napi-rs/keyring'));

const ENTRY_OPTIONS = { linux: { store: 'secret-service' as const } };

/** The keyring of this machine's user. Every failure to reach it is a ToolError UNAVAILABLE (keyringUnavailable). */
export function systemKeyring(): Keyring {
  const entry = async (name: string) => {
    const problem = keyringNameProblem(name);
    if (problem) throw new ToolError('INVALID_INPUT', problem, { details: { name } });
    const { AsyncEntry } = await reach(keyringModule());
    // Where no Secret Service answers, making the entry already fails.
    return reach(Promise.resolve().then(() => new AsyncEntry(KEYRING_SERVICE, name, ENTRY_OPTIONS)));
  };
  return {
    get: async (name) => (await reach((await entry(name)).getPassword())) ?? undefined,
    set: async (name, value) => reach((await entry(name)).setPassword(value)),
    remove: async (name) => reach((await entry(name)).deletePassword()),
    names: async () => {
      const { findCredentialsAsync } = await reach(keyringModule());
      const found = await reach(findCredentialsAsync(KEYRING_SERVICE));
      return [...new Set(found.map((c) => c.account))].sort();
    },
  };
}

async function reach<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw keyringUnavailable((error as Error).message);
  }
}

/** No keyring answers (no Secret Service on a server or in a container, a locked keychain): say so, and what to use instead. */
export function keyringUnavailable(reason: string): ToolError {
  return new ToolError('UNAVAILABLE', `The system keyring cannot be reached (${firstLine(reason)}).`, {
    details: { keyring: process.platform === 'linux' ? 'Secret Service (D-Bus)' : process.platform, reason: firstLine(reason) },
    hint:
      process.platform === 'linux'
        ? 'No Secret Service runs in this session (gnome-keyring, KeePassXC). Keep the secret in a file only you can read (chmod 600) and write ${file:PATH} in the config instead.'
        : 'Unlock the keyring, or keep the secret in a file only you can read and write ${file:PATH} in the config instead.',
  });
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]!.slice(0, 300);
}
