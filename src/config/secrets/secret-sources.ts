import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Keyring } from './keyring.js';
import { secretFilePath, secretFileValue, secretSourcesIn, keyringNameProblem, type SecretValues } from './secret-refs.js';

/** The most a secret file may hold: a key or a certificate, not a log file named by mistake. */
export const SECRET_FILE_MAX_BYTES = 1024 * 1024;

/** The secrets a config uses, as read now: what serve follows to restart the servers that use one that changed. */
export interface SecretSnapshot {
  /** The secret files, as absolute paths (watched by serve). */
  files: string[];
  /** The keyring names (polled by serve, re-read on SIGHUP). */
  keyring: string[];
  /** A digest of every value read (and of every problem): equal digests, nothing changed. */
  digest: string;
  /** The same of the keyring's values alone, for a poll of the keyring to compare with (keyringDigest). */
  keyringDigest: string;
}

/**
 * Reads every `${file:PATH}` and `${keyring:NAME}` the config's data names. A file or an entry
 * that cannot be read is a problem naming it, reported like an unset variable; the keyring is
 * reached only when the config names a secret in it.
 */
export async function readSecrets(
  data: unknown,
  configPath: string,
  keyring: () => Keyring | Promise<Keyring> = defaultKeyring,
): Promise<{ values: SecretValues; snapshot?: SecretSnapshot }> {
  const named = secretSourcesIn(data);
  if (named.files.length === 0 && named.keyring.length === 0) return { values: new Map() };
  const values = new Map<string, { value: string } | { problem: string }>();
  const folder = dirname(configPath);
  await Promise.all(named.files.map(async (written) => values.set(`file:${written}`, await readSecretFile(secretFilePath(written, folder)))));
  const fromKeyring = named.keyring.length ? await readKeyringSecrets(named.keyring, await keyring()) : new Map();
  for (const [key, value] of fromKeyring) values.set(key, value);
  const files = named.files.map((f) => secretFilePath(f, folder));
  return { values, snapshot: { files, keyring: named.keyring, digest: digestOf(values), keyringDigest: digestOf(fromKeyring) } };
}

/** What the keyring holds now for these names, as readSecrets's snapshot digests it: a poll compares it with keyringDigest. */
export async function keyringDigest(names: readonly string[], keyring: () => Keyring | Promise<Keyring> = defaultKeyring): Promise<string> {
  return digestOf(await readKeyringSecrets(names, await keyring()));
}

async function readKeyringSecrets(names: readonly string[], store: Keyring): Promise<Map<string, { value: string } | { problem: string }>> {
  const values = new Map<string, { value: string } | { problem: string }>();
  // One at a time: a Secret Service asked many things at once may prompt many times.
  for (const name of names) values.set(`keyring:${name}`, await readKeyringSecret(store, name));
  return values;
}

function digestOf(values: SecretValues): string {
  const digest = createHash('sha256');
  for (const key of [...values.keys()].sort()) digest.update(`${key}\0${JSON.stringify(values.get(key))}\0`);
  return digest.digest('hex');
}

async function defaultKeyring(): Promise<Keyring> {
  return (await import('./keyring.js')).systemKeyring();
}

/** One secret file's value. Non-blocking open: a FIFO or a device named by mistake is refused, never waited on. */
export async function readSecretFile(path: string): Promise<{ value: string } | { problem: string }> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const why = code === 'ENOENT' ? 'it does not exist' : code === 'EACCES' ? 'permission denied' : message;
    return { problem: `the secret file ${path} cannot be read (${why}): create it, or correct the path (relative paths start at the config's folder)` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { problem: `the secret file ${path} is not a regular file` };
    if (info.size > SECRET_FILE_MAX_BYTES)
      return { problem: `the secret file ${path} holds ${info.size} bytes, more than a secret's ${SECRET_FILE_MAX_BYTES}` };
    return { value: secretFileValue(await handle.readFile('utf8')) };
  } catch (error) {
    return { problem: `the secret file ${path} cannot be read (${(error as Error).message})` };
  } finally {
    await handle.close();
  }
}

async function readKeyringSecret(store: Keyring, name: string): Promise<{ value: string } | { problem: string }> {
  const bad = keyringNameProblem(name);
  if (bad) return { problem: bad };
  try {
    const value = await store.get(name);
    return value === undefined ? { problem: `the system keyring has no secret ${name} (set it with: mcpkit secret set ${name})` } : { value };
  } catch (error) {
    return { problem: `the secret ${name} cannot be read from the system keyring: ${(error as Error).message}` };
  }
}
